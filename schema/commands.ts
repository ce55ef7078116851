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

/**
 * GraphQL's one rule for null: "no value". A field the command allows to be null (a setting that
 * can be cleared) gets null; any other null field is left out, like an absent one.
 */
function withNullsAsNoValue(schema: z.ZodType | undefined, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => withNullsAsNoValue(elementOf(schema), v));
  if (value === null || typeof value !== 'object') return value;
  const shape = objectOf(schema)?.shape as Record<string, z.ZodType> | undefined;
  return Object.fromEntries(
    Object.entries(value).flatMap(([key, v]) => {
      const field = shape?.[key];
      if (v === undefined) return [];
      if (v === null) return field?.safeParse(null).success ? [[key, null]] : [];
      return [[key, withNullsAsNoValue(field, v)]];
    }),
  );
}

/** GraphQL arguments → the domain command, validated by the command's own schema (field errors name the GraphQL fields). */
export function commandOf<S extends z.ZodType>(schema: S, input: Record<string, unknown>): z.output<S> {
  return parseInput(schema, withNullsAsNoValue(schema, input));
}
