import { ApiError } from '../api/errors.js';
import { fieldReason } from '../catalog.js';
import { useLang } from '../context.js';

/**
 * The API's field problems shown where they belong (issue #38): each next to its input, worded
 * from the catalog. `names` maps the API's field (`url`, `dropoff.number`, `dimensions.lengthCm`;
 * a key also stands for the fields under it) to the form's input name; problems of fields the
 * form does not show stay in the form's ErrorNote (pass it `shown`, and place it after the fields:
 * a field counts as shown once its reason was rendered, so an input left out of the form — the
 * address in coordinates mode — leaves its reason in the note).
 *
 *   const f = useFieldErrors(error, 'endpoint', { url: 'url' });
 *   <label>URL<input name="url" {...f.input('url')} /></label>{f.reason('url')}
 *   <ErrorNote error={error} shown={f.shown} />
 */
export function useFieldErrors(error: unknown, form: string, names: Readonly<Record<string, string>>) {
  const lang = useLang();
  const problems = error instanceof ApiError ? error.fields : [];
  const byName = new Map<string, { fields: string[]; reasons: string[] }>();
  const shown = new Set<string>();
  for (const problem of problems) {
    const name = nameOf(problem.field, names);
    if (name === undefined) continue;
    const entry = byName.get(name) ?? { fields: [], reasons: [] };
    entry.fields.push(problem.field);
    entry.reasons.push(fieldReason(problem.message, lang));
    byName.set(name, entry);
  }
  const idOf = (name: string) => `${form}-${name.replace(/[^A-Za-z0-9_-]/g, '-')}-error`;
  return {
    /** The API's fields shown next to an input (the ErrorNote leaves them out). */
    shown: shown as ReadonlySet<string>,
    /** Spread on the input: marked invalid and described by its reason when the API named it. */
    input(name: string, describedBy?: string): { 'aria-invalid'?: 'true'; 'aria-describedby'?: string } {
      if (!byName.has(name)) return describedBy ? { 'aria-describedby': describedBy } : {};
      return { 'aria-invalid': 'true', 'aria-describedby': [describedBy, idOf(name)].filter(Boolean).join(' ') };
    },
    /** The reasons for one input, placed right after it. */
    reason(name: string) {
      const entry = byName.get(name);
      if (!entry) return null;
      for (const field of entry.fields) shown.add(field);
      return <small class="field-error" id={idOf(name)} data-field={name}>{entry.reasons.join('; ')}</small>;
    },
  };
}

/** The form's input for an API field: its own entry, else its nearest parent's (`dimensions.lengthCm` → `dimensions`). */
function nameOf(field: string, names: Readonly<Record<string, string>>): string | undefined {
  for (let key = field; key; key = key.includes('.') ? key.slice(0, key.lastIndexOf('.')) : '') {
    if (Object.hasOwn(names, key)) return names[key];
  }
  return undefined;
}
