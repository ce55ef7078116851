import type { z } from 'zod';
import { parseInput } from '../src/domain/validation.js';

/** GraphQL's one rule for null: an input field given as null is a field left out. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (v == null ? [] : [[k, withoutNulls(v)]])));
}

/** GraphQL arguments → the domain command, validated by the command's own schema (field errors name the GraphQL fields). */
export function commandOf<S extends z.ZodType>(schema: S, input: Record<string, unknown>): z.output<S> {
  return parseInput(schema, withoutNulls(input));
}
