import { z } from 'zod';
import { AppError } from './errors.js';

/**
 * A page cursor of an id-ordered list: the id of the last item of the previous page, exactly as the
 * list gave it (`next_cursor`, or the last id). Ids are `<prefix>_` + a ULID (Crockford base32,
 * upper case; tests give shorter ones). Anything else is refused, never read as "from the start":
 * a cursor that means nothing would silently serve the newest page again.
 */
const CURSOR_BODY = '[0-9A-HJKMNP-TV-Z]{1,26}';

export function idCursorSchema(prefix: string) {
  return z.string().regex(new RegExp(`^${prefix}_${CURSOR_BODY}$`), `not a cursor of this list (the id of the last item of a page: ${prefix}_…)`);
}

/** A cursor given outside a zod schema (a transport's argument): checked, or VALIDATION_ERROR on `field`. */
export function parseIdCursor(prefix: string, value: string, field = 'after'): string {
  const parsed = idCursorSchema(prefix).safeParse(value);
  if (parsed.success) return parsed.data;
  throw new AppError('VALIDATION_ERROR', `Invalid request: ${field}`, { fields: [{ field, message: parsed.error.issues[0]!.message }] });
}
