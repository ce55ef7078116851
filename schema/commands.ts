import { z } from 'zod';
import { parseInput } from '../src/domain/validation.js';

/** The object schema under optional/nullable/default/transform wrappers, if any. */
function objectOf(schema: z.ZodType | undefined): z.ZodObject | undefined {
  let s: unknown = schema;
  for (let i = 0; i < 8 && s; i++) {
    if (s instanceof z.ZodObject) return s;
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) s = s.unwrap();
    else if (s instanceof z.ZodPipe) s = s.in;
    else return undefined;
  }
  return undefined;
}

function elementOf(schema: z.ZodType | undefined): z.ZodType | undefined {
  let s: unknown = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) s = s.unwrap();
  return s instanceof z.ZodArray ? (s.element as z.ZodType) : undefined;
}

/** Whether a field's schema takes null (asked once per schema: a failed zod parse builds its issues). */
const takesNull = new WeakMap<z.ZodType, boolean>();
function acceptsNull(field: z.ZodType): boolean {
  let answer = takesNull.get(field);
  if (answer === undefined) takesNull.set(field, (answer = field.safeParse(null).success));
  return answer;
}

/**
 * GraphQL's one rule for null: "no value". A field the command allows to be null (a setting that
 * can be cleared) gets null; any other null field is left out, like an absent one.
 */
function withNullsAsNoValue(schema: z.ZodType | undefined, value: unknown): unknown {
  if (Array.isArray(value)) {
    const element = elementOf(schema);
    return value.map((v) => withNullsAsNoValue(element, v));
  }
  if (value === null || typeof value !== 'object') return value;
  const shape = objectOf(schema)?.shape as Record<string, z.ZodType> | undefined;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    const field = shape?.[key];
    if (v === undefined) continue;
    if (v === null) {
      if (field && acceptsNull(field)) out[key] = null;
      continue;
    }
    out[key] = withNullsAsNoValue(field, v);
  }
  return out;
}

/** GraphQL arguments → the domain command, validated by the command's own schema (field errors name the GraphQL fields). */
export function commandOf<S extends z.ZodType>(schema: S, input: Record<string, unknown>): z.output<S> {
  return parseInput(schema, withNullsAsNoValue(schema, input));
}
