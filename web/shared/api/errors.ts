import { ERROR_TEXT, fieldText, isErrorCode, UNKNOWN_ERROR_TEXT } from '../catalog.js';
import type { Lang } from '../i18n.js';

export interface FieldProblem { field: string; message: string }

/** A refusal from the API: the AppError code (typed result or GraphQL error), its message and its field problems. */
export class ApiError extends Error {
  constructor(readonly code: string, message: string, readonly details?: Record<string, unknown>, readonly fields: FieldProblem[] = []) {
    super(message);
  }
}

let sessionEnded: () => void = () => undefined;

/** Called when the API says the session is over (signed out elsewhere, expired, member removed). */
export function onSessionEnded(handler: () => void): void {
  sessionEnded = handler;
}

/** The API's refusal as an error to throw; an ended session also tells the app (back to sign-in). */
export function refusal(code: string, message: string, details?: Record<string, unknown>, fields?: FieldProblem[]): ApiError {
  if (code === 'INVALID_SESSION') sessionEnded();
  return new ApiError(code, message, details, fields);
}

/** A typed result: `…Success { data }` or `AppError { code message }` (both selected with __typename). */
type Outcome = { __typename: string };
type DataOf<R> = R extends { data: infer D } ? D : never;

export function dataOf<R extends Outcome>(outcome: R): DataOf<R> {
  if ('data' in outcome) return outcome.data as DataOf<R>;
  const error = outcome as { code?: string; message?: string; fields?: FieldProblem[] };
  throw refusal(error.code ?? 'INTERNAL_ERROR', error.message ?? `Unexpected ${outcome.__typename}`, undefined, error.fields);
}

/** An app's own wording for some codes (its audience's words), before the room's. */
export type ErrorWords = Record<Lang, Record<string, string>>;

/**
 * What the page shows for a failure, in the page's language: the app's own wording, else the
 * catalog's (every code of the API's list); for a code the catalog does not know yet, what to do
 * next — never the server's English nor a bare code. Field problems are worded from their field
 * and reason (`skip`: those already shown next to their field).
 */
export function messageOf(error: unknown, lang: Lang, words?: ErrorWords, skip: ReadonlySet<string> = new Set()): { code: string; text: string; fields: string[] } {
  if (!(error instanceof ApiError)) return { code: 'NETWORK', text: words?.[lang].NETWORK ?? ERROR_TEXT[lang].NETWORK, fields: [] };
  const text = words?.[lang][error.code] ?? (isErrorCode(error.code) ? ERROR_TEXT[lang][error.code] : UNKNOWN_ERROR_TEXT[lang]);
  return { code: error.code, text, fields: error.fields.filter((field) => !skip.has(field.field)).map((field) => fieldText(field, lang)) };
}
