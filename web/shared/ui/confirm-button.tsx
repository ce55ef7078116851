import { useEffect, useRef, useState } from 'preact/hooks';
import { useStrings, type Strings } from '../i18n.js';

const S: Strings<'yes' | 'no'> = {
  es: { yes: 'Sí, confirmar', no: 'No' },
  en: { yes: 'Yes, confirm', no: 'No' },
};

/**
 * A button for an action that cannot be undone (rotate, revoke, delete, remove, bulk redeliver):
 * the first press asks `question` inline and moves focus to the confirmation; "No" returns it.
 */
export function ConfirmButton(props: { id: string; label: string; question: string; onConfirm: () => void; danger?: boolean; disabled?: boolean }) {
  const t = useStrings(S);
  const [asking, setAsking] = useState(false);
  const yes = useRef<HTMLButtonElement>(null);
  const start = useRef<HTMLButtonElement>(null);
  const wasAsking = useRef(false);
  useEffect(() => {
    if (asking) yes.current?.focus();
    else if (wasAsking.current) start.current?.focus();
    wasAsking.current = asking;
  }, [asking]);
  if (!asking) {
    return <button type="button" ref={start} id={props.id} class={props.danger ? 'danger' : undefined} disabled={props.disabled} onClick={() => setAsking(true)}>{props.label}</button>;
  }
  return (
    <span class="confirm" role="group" aria-label={props.label}>
      <span>{props.question}</span>
      <button type="button" ref={yes} id={`${props.id}-confirm`} class={props.danger ? 'danger' : undefined} onClick={() => { setAsking(false); props.onConfirm(); }}>{t.yes}</button>
      <button type="button" class="secondary" onClick={() => setAsking(false)}>{t.no}</button>
    </span>
  );
}
