import { z } from 'zod';
import { AppError, type FieldError } from './errors.js';

/** Parses untrusted input with a zod schema; failures become VALIDATION_ERROR listing each field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationError(result.error);
}

export function validationError(error: z.ZodError): AppError {
  const fields: FieldError[] = error.issues.slice(0, 20).flatMap((issue) => {
    const at = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.slice(0, 20).map((key) => ({ field: [...at, key].join('.'), message: 'unknown field' }));
    }
    return [{ field: at.length ? at.join('.') : '(body)', message: describeIssue(issue) }];
  });
  const names = [...new Set(fields.map((f) => f.field))].join(', ');
  return new AppError('VALIDATION_ERROR', `Invalid request: ${names}`, { fields });
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'is required';
  return issue.message;
}
