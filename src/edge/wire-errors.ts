/**
 * Domain errors name a field once, by its domain key (`codAmount`, `idCheck.documentNumber`), in
 * `fields` and in their messages; each edge words it. GraphQL shows the keys as they are (its
 * arguments and inputs carry the same camelCase names); REST renders them in the wire's
 * snake_case (`cod_amount`, `id_check.document_number`), or as a route names them (a Form B
 * `dropoff` is `dropoff_address`, the idempotency key a header).
 */
import { z } from 'zod';
import type { AppError } from '../domain/errors.js';
import { idCheckInputSchema } from '../domain/orders/id-check.js';
import { confirmDeliveryCommandSchema, createOrderCommandSchema } from '../domain/orders/schemas.js';
import { quoteCommandSchema } from '../domain/quotes.js';
import { FIELD_MESSAGES } from '../domain/validation.js';

/** `codAmount` → `cod_amount`; anything not a camelCase identifier (a header, `(body)`) is kept. */
export function wireName(key: string): string {
  return /^[a-z][a-zA-Z0-9]*$/.test(key) ? key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : key;
}

/** Every object key of a schema, at any depth (through optional, default, array, union and pipe wrappers). */
function keysOf(schema: unknown, into: Set<string>, seen = new Set<unknown>()): Set<string> {
  if (seen.has(schema)) return into;
  seen.add(schema);
  if (schema instanceof z.ZodObject) {
    for (const [key, member] of Object.entries(schema.shape as Record<string, unknown>)) {
      into.add(key);
      keysOf(member, into, seen);
    }
  } else if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable || schema instanceof z.ZodDefault) keysOf(schema.unwrap(), into, seen);
  else if (schema instanceof z.ZodArray) keysOf(schema.element, into, seen);
  else if (schema instanceof z.ZodPipe) keysOf(schema.in, into, seen);
  else if (schema instanceof z.ZodUnion) for (const option of schema.options) keysOf(option, into, seen);
  return into;
}

/**
 * The domain keys REST callers may meet in an error's message though the error's `fields` do not
 * list them ("codAmount is only for cash-on-delivery orders" names paymentMode in its field message):
 * the fields of the commands REST maps onto the domain, and the few keys named outside them.
 */
const DOMAIN_KEYS: ReadonlySet<string> = [createOrderCommandSchema, confirmDeliveryCommandSchema, quoteCommandSchema, idCheckInputSchema].reduce(
  (keys, schema) => keysOf(schema, keys),
  new Set(['idempotencyKey', 'recordedAt', 'startTime', 'photoProofId', 'signatureProofId', 'codCollected', 'failedAttemptPolicy']),
);

const CAMEL_WORD = /\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b/g;

/**
 * The error in the REST caller's terms: every field path segment and every domain key named in a
 * message, as `names` calls it or else in snake_case. Applying it twice changes nothing.
 */
export function inWireTerms(error: AppError, names: Readonly<Record<string, string>> = {}): AppError {
  const keys = new Set(DOMAIN_KEYS);
  for (const f of error.fields ?? []) for (const segment of f.field.match(/[A-Za-z][A-Za-z0-9]*/g) ?? []) keys.add(segment);
  // An unknown field is the caller's own key, named as sent (`prepTimeMins` sent to REST is not `prep_time_mins`).
  const unknown = new Set((error.fields ?? []).filter((f) => f.message === FIELD_MESSAGES.unknown).map((f) => f.field));
  for (const field of unknown) for (const segment of field.match(/[A-Za-z][A-Za-z0-9]*/g) ?? []) keys.delete(segment);
  // Own names only: a field called `__proto__` or `constructor` (an unknown key of the body) is no route name.
  const named = (key: string) => (Object.hasOwn(names, key) ? names[key] : undefined);
  const render = (key: string) => named(key) ?? wireName(key);
  const words = (text: string) => text.replace(CAMEL_WORD, (word) => (keys.has(word) ? render(word) : word));
  const path = (field: string) => {
    const [head, ...rest] = field.split('.');
    return [named(head!) ?? head!, ...rest].join('.').replace(/[A-Za-z][A-Za-z0-9]*/g, wireName);
  };
  const message = words(error.message);
  const fields = error.fields?.map((f) => ({ field: unknown.has(f.field) ? f.field : path(f.field), message: words(f.message) }));
  const same = message === error.message && (fields ?? []).every((f, i) => f.field === error.fields![i]!.field && f.message === error.fields![i]!.message);
  if (same) return error;
  // A copy of the same class, keeping the typed error's own members (a GeofenceError's distances, a rate limit's decision).
  return Object.assign(Object.create(Object.getPrototypeOf(error) as object) as AppError, error, { message, fields });
}
