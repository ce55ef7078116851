import { messageOf, type ErrorWords } from '../api/errors.js';
import { useLang } from '../context.js';

/**
 * A refusal or failure, announced to screen readers, in the page's words (never a bare code:
 * `data-code` carries the API's code for tests and support). `shown`: the fields whose reasons
 * stand next to their inputs already (useFieldErrors); the rest are listed here.
 */
export function ErrorNote({ error, words, id, shown }: { error: unknown; words?: ErrorWords; id?: string; shown?: ReadonlySet<string> }) {
  const lang = useLang();
  if (!error) return null;
  const { code, text, fields } = messageOf(error, lang, words, shown);
  return (
    <div class="error" role="alert" id={id} data-code={code}>
      {text}
      {fields.length > 0 && <ul class="field-errors">{fields.map((field) => <li key={field}>{field}</li>)}</ul>}
    </div>
  );
}
