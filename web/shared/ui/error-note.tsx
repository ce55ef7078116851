import { messageOf } from '../api/errors.js';
import { useLang } from '../context.js';

/** A refusal or failure, announced to screen readers; `data-code` carries the API's code. */
export function ErrorNote({ error }: { error: unknown }) {
  const lang = useLang();
  if (!error) return null;
  const { code, text } = messageOf(error, lang);
  return <p class="error" role="alert" data-code={code}>{text} <span class="code">({code})</span></p>;
}
