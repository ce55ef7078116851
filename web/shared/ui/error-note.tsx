import { messageOf, type ErrorWords } from '../api/errors.js';
import { useLang } from '../context.js';

/** A refusal or failure, announced to screen readers; `data-code` carries the API's code. */
export function ErrorNote({ error, words, id }: { error: unknown; words?: ErrorWords; id?: string }) {
  const lang = useLang();
  if (!error) return null;
  const { code, text, fields } = messageOf(error, lang, words);
  return (
    <div class="error" role="alert" id={id} data-code={code}>
      {text} <span class="code">({code})</span>
      {fields.length > 0 && <ul class="field-errors">{fields.map((field) => <li key={field}>{field}</li>)}</ul>}
    </div>
  );
}
