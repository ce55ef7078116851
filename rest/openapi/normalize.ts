/**
 * Corrections applied to the generated document, so that it says what OpenAPI 3.1 (JSON Schema
 * 2020-12) validators and client generators really read:
 *
 * - A nullable reference comes out of the generator as `allOf: [{$ref}, {type: ['object', 'null']}]`,
 *   which can never accept null (the `$ref` branch refuses it). It becomes
 *   `anyOf: [{$ref}, {type: 'null'}]`, keeping the description and other annotations beside it.
 * - An integer that may exceed 2^31 − 1 (its `maximum` says so) gets `format: int64`, so generated
 *   clients do not pick a 32-bit type for it.
 * - A field a request form leaves out (`x-never`, request-forms.ts) becomes a schema no value
 *   satisfies, `allOf: [{type: 'string'}, {type: 'number'}]` (zod's `never` has no OpenAPI form).
 *   Both generators type it `never` (`string & number`), so the property is `?: never` and a form's
 *   other fields discriminate the union: the schema `false` would say the same to validators, but
 *   @hey-api/openapi-ts drops a `false` property, and its client then accepts a field of one form
 *   in another (`stops` with `dropoff_address`, `cod_amount` on a prepaid order).
 */

const INT32_MAX = 2 ** 31 - 1;

/** No value is both: a validator accepts nothing, openapi-typescript and hey-api emit `string & number` (never). */
export const NO_VALUE = [{ type: 'string' }, { type: 'number' }] as const;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nullableReference(schema: JsonObject): JsonObject | undefined {
  const allOf = schema.allOf;
  if (!Array.isArray(allOf) || allOf.length !== 2) return undefined;
  const [ref, extra] = allOf;
  if (!isObject(ref) || typeof ref.$ref !== 'string' || Object.keys(ref).length !== 1 || !isObject(extra)) return undefined;
  const type = extra.type;
  if (!Array.isArray(type) || !type.includes('null')) return undefined;
  // Only annotations may sit beside the type: anything that constrains would be lost.
  const { type: _type, ...annotations } = extra;
  if (Object.keys(annotations).some((k) => !ANNOTATIONS.has(k))) return undefined;
  const { allOf: _allOf, ...rest } = schema;
  return { ...rest, ...annotations, anyOf: [ref, { type: 'null' }] };
}

const ANNOTATIONS = new Set(['description', 'example', 'examples', 'title', 'deprecated', 'default']);

function isIntegerType(type: Json | undefined): boolean {
  return type === 'integer' || (Array.isArray(type) && type.includes('integer'));
}

function normalize(node: Json): Json {
  if (Array.isArray(node)) return node.map(normalize);
  if (!isObject(node)) return node;
  if (node['x-never'] === true) {
    const out: JsonObject = { allOf: NO_VALUE.map((n) => ({ ...n })) };
    if (typeof node.description === 'string') out.description = node.description;
    return out;
  }
  const replaced = nullableReference(node) ?? node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(replaced)) out[key] = normalize(value);
  if (isIntegerType(out.type) && out.format === undefined && typeof out.maximum === 'number' && out.maximum > INT32_MAX) out.format = 'int64';
  return out;
}

/** A deep copy of the document with the corrections above. */
export function normalizeDocument<T extends object>(document: T): T {
  return normalize(document as unknown as Json) as unknown as T;
}
