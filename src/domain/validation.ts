import type { z } from 'zod';
import { AppError, type FieldError } from './errors.js';

/** The two field messages the service words itself (the rest are zod's); the console translates them. */
export const FIELD_MESSAGES = { required: 'is required', unknown: 'unknown field' } as const;

/** Parses untrusted input with a zod schema; failures become VALIDATION_ERROR listing each field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationError(result.error, input);
}

export function validationError(error: z.ZodError, input?: unknown): AppError {
  const fields: FieldError[] = error.issues.slice(0, 20).flatMap((issue) => {
    const at = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.slice(0, 20).map((key) => ({ field: [...at, key].join('.'), message: FIELD_MESSAGES.unknown }));
    }
    const missing = valueAt(input, issue.path) === undefined;
    return [{ field: at.length ? at.join('.') : '(body)', message: missing ? FIELD_MESSAGES.required : issue.message }];
  });
  const names = [...new Set(fields.map((f) => f.field))].join(', ');
  return new AppError('VALIDATION_ERROR', `Invalid request: ${names}`, { fields });
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}
