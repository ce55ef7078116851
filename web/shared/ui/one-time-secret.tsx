import { useEffect, useRef, useState } from 'preact/hooks';
import { useStrings, type Strings } from '../i18n.js';

const S: Strings<'copy' | 'copied' | 'copyFailed' | 'once'> = {
  es: { copy: 'Copiar', copied: 'Copiado.', copyFailed: 'No se pudo copiar: selecciona el texto y cópialo.', once: 'Guárdalo ahora: no se volverá a mostrar.' },
  en: { copy: 'Copy', copied: 'Copied.', copyFailed: 'Could not copy: select the text and copy it.', once: 'Keep it now: it will not be shown again.' },
};

/** A credential the API shows once (new key, signing secret, invitation link): the value, a copy button, the warning. */
export function OneTimeSecret({ id, label, value }: { id: string; label: string; value: string }) {
  const t = useStrings(S);
  const [copied, setCopied] = useState<boolean | null>(null);
  const input = useRef<HTMLInputElement>(null);
  // Focus moves to the new value (selected, ready to copy): it is what the member came for.
  useEffect(() => input.current?.focus(), [value]);
  const copy = () => navigator.clipboard.writeText(value).then(() => setCopied(true), () => setCopied(false));
  return (
    <div class="one-time" id={id} role="status">
      <label>{label}<input ref={input} readOnly value={value} class="secret" id={`${id}-value`} onFocus={(e) => e.currentTarget.select()} /></label>
      <div class="actions">
        <button type="button" id={`${id}-copy`} onClick={() => void copy()}>{t.copy}</button>
        <span aria-live="polite">{copied === true ? t.copied : copied === false ? t.copyFailed : ''}</span>
      </div>
      <p class="note"><strong>{t.once}</strong></p>
    </div>
  );
}
