import { useState } from 'preact/hooks';
import { dateTime } from '../../shared/format.js';
import { useLang } from '../../shared/context.js';
import { useStrings, type Strings } from '../../shared/i18n.js';

const S: Strings<'ask' | 'minAge' | 'required' | 'verified'> = {
  es: { ask: 'Verificar identidad al entregar (RUT y edad)', minAge: 'Edad mínima', required: 'Verificación de identidad', verified: 'Identidad verificada' },
  en: { ask: 'Check the ID at the door (RUT and age)', minAge: 'Minimum age', required: 'ID check', verified: 'ID verified' },
};

/** The new-order form's ID-check option (issue #30): a checkbox, and the minimum age once ticked. */
export function IdCheckOption() {
  const t = useStrings(S);
  const [asked, setAsked] = useState(false);
  return (
    <>
      <label class="check"><input type="checkbox" name="idCheck" id="id-check" checked={asked} onChange={(e) => setAsked(e.currentTarget.checked)} />{t.ask}</label>
      {asked && <label>{t.minAge}<input name="idCheckMinAge" id="id-check-min-age" type="number" min={18} max={99} step={1} defaultValue="18" required /></label>}
    </>
  );
}

/** The form's answer as CreateOrderInput's idCheck (undefined: not asked). */
export function idCheckInputOf(data: FormData): { required: true; minAge: number } | undefined {
  if (data.get('idCheck') === null) return undefined;
  return { required: true, minAge: Number(data.get('idCheckMinAge')) || 18 };
}

/** The order's ID-check facts, inside its <dl>: what is asked, and once delivered, what the courier checked. */
export function IdCheckFacts(props: { asked: { minAge: number } | null; checked: { minAge: number; documentLast4: string; checkedAt: string } | null | undefined }) {
  const t = useStrings(S);
  const lang = useLang();
  if (!props.asked && !props.checked) return null;
  return props.checked
    ? <><dt>{t.verified}</dt><dd id="id-check-verified">{props.checked.minAge}+ · RUT …{props.checked.documentLast4} · {dateTime(props.checked.checkedAt, lang)}</dd></>
    : <><dt>{t.required}</dt><dd id="id-check-required">{props.asked!.minAge}+</dd></>;
}
