import { useState } from 'preact/hooks';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { isValidRut } from '../../shared/rut.js';

/** What the courier read off the recipient's ID, ready to send once both fields are well formed. */
export interface IdCheckValue { document_number: string; date_of_birth: string }

const S: Strings<'title' | 'hint' | 'rut' | 'rutInvalid' | 'birth' | 'fact'> = {
  es: {
    title: 'Verificación de identidad', hint: 'Pide la cédula al cliente: debe tener {age} años o más. Solo se guardan los últimos 4 caracteres del RUT.',
    rut: 'RUT del cliente', rutInvalid: 'RUT no válido: revisa el dígito verificador.', birth: 'Fecha de nacimiento',
    fact: 'Cédula del cliente y {age} años o más, antes de entregar',
  },
  en: {
    title: 'ID check', hint: "Ask for the customer's ID card: they must be {age} or older. Only the RUT's last 4 characters are kept.",
    rut: "Customer's RUT", rutInvalid: 'Invalid RUT: check the check digit.', birth: 'Date of birth',
    fact: "The customer's ID card, {age} or older, before the delivery",
  },
};

/**
 * The ID check an order asks for, before the proof (issue #30). The RUT's check digit is checked here
 * with the server's rule so a typo shows at once; the age is the server's to decide.
 */
export function IdCheckFields({ minAge, onChange }: { minAge: number; onChange: (value: IdCheckValue | null) => void }) {
  const t = useStrings(S);
  const [rut, setRut] = useState('');
  const [birth, setBirth] = useState('');
  const rutValid = isValidRut(rut);
  const update = (nextRut: string, nextBirth: string) => {
    setRut(nextRut);
    setBirth(nextBirth);
    const ok = isValidRut(nextRut) && /^\d{4}-\d{2}-\d{2}$/.test(nextBirth);
    onChange(ok ? { document_number: nextRut.trim(), date_of_birth: nextBirth } : null);
  };
  return (
    <fieldset class="id-check" id="id-check" data-min-age={minAge}>
      <legend>{t.title}</legend>
      <p class="note" id="id-check-hint">{t.hint.replace('{age}', String(minAge))}</p>
      <label>
        {t.rut}
        <input id="id-document" autoComplete="off" inputMode="text" placeholder="12.345.678-5" maxLength={20} value={rut} aria-invalid={rut !== '' && !rutValid}
          aria-describedby="id-check-hint" onInput={(e) => update(e.currentTarget.value, birth)} />
      </label>
      {rut !== '' && !rutValid && <p class="note error" id="id-document-error" role="alert">{t.rutInvalid}</p>}
      <label>
        {t.birth}
        <input id="id-birth" type="date" value={birth} onInput={(e) => update(rut, e.currentTarget.value)} />
      </label>
    </fieldset>
  );
}

/** The job's fact, from the assignment on: this order will need the customer's ID at the door. */
export function IdCheckFact({ minAge }: { minAge: number }) {
  const t = useStrings(S);
  return <><dt>{t.title}</dt><dd id="id-check-fact" data-min-age={minAge}>{t.fact.replace('{age}', String(minAge))}</dd></>;
}
