/**
 * One validator for everything the tests see on the wire: every REST response and every webhook
 * delivery is checked against the OpenAPI document the server serves (the one of
 * rest/openapi/document.ts; test/rest/openapi.test.ts compares them), with ajv (JSON Schema 2020-12,
 * strict, with formats). On top of the document, an object may carry no property it does not
 * describe (`unevaluatedProperties: false` at every use), so a field added without documenting it
 * fails too. Problems are recorded and fail the running test (see wire-setup.ts).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { buildOpenApiDocument } from '../../rest/openapi/document.js';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const PREFIX = '/api/v1';
const DEFS_ID = 'https://express-delivery.test/openapi-defs.json';

const document = JSON.parse(JSON.stringify(buildOpenApiDocument())) as JsonObject;
const schemas = (document.components as JsonObject).schemas as JsonObject;

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `#/components/schemas/X` → the definitions schema; every object use made closed. */
function closed(node: Json, inAllOf = false): Json {
  if (Array.isArray(node)) return node.map((n) => closed(n));
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'allOf' && Array.isArray(v)) out[k] = v.map((n) => closed(n, true));
    else if (k === '$ref' && typeof v === 'string') out[k] = v.replace('#/components/schemas/', `${DEFS_ID}#/$defs/`);
    else out[k] = closed(v);
  }
  if (!inAllOf && isObjectSchema(node) && out.additionalProperties === undefined) {
    out.type ??= 'object';
    out.unevaluatedProperties = false;
  }
  return out;
}

/** An object schema: by its type or properties, through `$ref` and `allOf`. */
function isObjectSchema(node: JsonObject): boolean {
  if (node.type === 'object' || node.properties !== undefined) return true;
  if (typeof node.$ref === 'string') {
    const target = schemas[node.$ref.replace('#/components/schemas/', '')];
    return isObject(target) && isObjectSchema(target);
  }
  return Array.isArray(node.allOf) && node.allOf.some((n) => isObject(n) && isObjectSchema(n));
}

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
addFormats(ajv);
ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs']);
// Definitions stay open: a `$ref` use closes them, so allOf can extend one (ErrorResponse + fields).
const defs = Object.fromEntries(Object.entries(schemas).map(([name, s]) => [name, closedDefinition(s)]));
function closedDefinition(s: Json): Json {
  const c = closed(s) as JsonObject;
  delete c.unevaluatedProperties;
  return c;
}
ajv.addSchema({ $id: DEFS_ID, $defs: defs });

const compiled = new Map<string, ValidateFunction>();
function validatorFor(key: string, schema: Json): ValidateFunction {
  let v = compiled.get(key);
  if (!v) compiled.set(key, (v = ajv.compile(closed(schema) as object)));
  return v;
}

function errorsOf(v: ValidateFunction): string {
  return ajv.errorsText(v.errors, { separator: '; ', dataVar: 'body' });
}

const paths = Object.entries(document.paths as JsonObject)
  .map(([template, item]) => ({
    template,
    item: item as JsonObject,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}$`),
    literal: template.split('/').filter((s) => !s.startsWith('{')).length,
  }))
  // `/orders/consolidate` before `/orders/{id}`.
  .sort((a, b) => b.literal - a.literal);

const problems: string[] = [];

/** Problems recorded since the last call (and forgets them). */
export function takeWireProblems(): string[] {
  return problems.splice(0);
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

/** Checks one REST response; URLs outside /api/v1 are ignored. Returns the problems found (also recorded). */
export function checkRestResponse(r: { method: string; url: string; status: number; contentType: string | null; body: string }): string[] {
  const url = new URL(r.url);
  if (!url.pathname.startsWith(`${PREFIX}/`) && url.pathname !== PREFIX) return [];
  // Express routes are not strict: `/merchants/me/` is `/merchants/me`.
  const path = url.pathname.slice(PREFIX.length).replace(/(.)\/$/, '$1') || '/';
  // OPTIONS is Express's automatic answer (the allowed methods, no CORS), not an API operation.
  if (r.method.toUpperCase() === 'OPTIONS') return [];
  const head = r.method.toUpperCase() === 'HEAD';
  const method = head ? 'get' : r.method.toLowerCase();
  const where = `${r.method.toUpperCase()} ${url.pathname} → ${r.status}`;
  const found: string[] = [];
  const isJson = r.contentType !== null && JSON_TYPE.test(r.contentType);
  const match = paths.find((p) => p.pattern.test(path));
  const operation = match && isObject(match.item[method]) ? (match.item[method] as JsonObject) : undefined;

  if (!operation) {
    // Undocumented path or method: only an error answer (404 NOT_FOUND, 405) or a docs asset is acceptable.
    if (!isJson) {
      if (!path.startsWith('/docs/assets/')) found.push(`${where}: undocumented operation answered ${r.contentType ?? 'no content type'}`);
    } else {
      const v = validatorFor('ErrorResponse', { $ref: '#/components/schemas/ErrorResponse' });
      if (r.status < 400) found.push(`${where}: undocumented operation answered success`);
      else if (!head && !v(parseOr(r.body))) found.push(`${where}: not an ErrorResponse: ${errorsOf(v)}`);
    }
    return record(found);
  }
  const responses = operation.responses as JsonObject;
  const key = [String(r.status), `${String(r.status)[0]}XX`, 'default'].find((k) => responses[k] !== undefined);
  if (!key) return record([`${where}: status not documented for ${method.toUpperCase()} ${match!.template} (documented: ${Object.keys(responses).join(', ')})`]);
  const response = responses[key] as JsonObject;
  const content = response.content as JsonObject | undefined;
  if (!content) {
    if (r.body.length > 0) found.push(`${where}: documented without a body, answered ${r.body.length} bytes`);
    return record(found);
  }
  const mediaType = (r.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const media = content[mediaType] as JsonObject | undefined;
  if (!media) return record([`${where}: content type ${mediaType || '(none)'} not documented (documented: ${Object.keys(content).join(', ')})`]);
  if (isJson && media.schema !== undefined && !head) {
    const v = validatorFor(`${match!.template} ${method} ${key} ${mediaType}`, media.schema);
    const body = parseOr(r.body);
    if (!v(body)) found.push(`${where}: ${errorsOf(v)} — body ${r.body.slice(0, 400)}`);
  }
  return record(found);
}

/** Checks one webhook delivery as a receiver got it (lower-case header names, raw body). */
export function checkWebhookDelivery(headers: Record<string, string>, body: string): string[] {
  const event = headers['webhook-event'];
  const webhooks = document.webhooks as JsonObject;
  const operation = event && isObject(webhooks[event]) ? ((webhooks[event] as JsonObject).post as JsonObject) : undefined;
  if (!operation) return record([`webhook ${event ?? '(no webhook-event header)'}: not a documented webhook`]);
  const found: string[] = [];
  for (const p of operation.parameters as JsonObject[]) {
    const param = (typeof p.$ref === 'string' ? resolveParameter(p.$ref) : p) as JsonObject;
    const name = String(param.name).toLowerCase();
    const value = headers[name];
    if (value === undefined) {
      if (param.required === true) found.push(`webhook ${event}: header ${name} missing`);
      continue;
    }
    const v = validatorFor(`webhook header ${name}`, param.schema!);
    if (!v(value)) found.push(`webhook ${event}: header ${name}: ${errorsOf(v)}`);
  }
  const schema = (((operation.requestBody as JsonObject).content as JsonObject)['application/json'] as JsonObject).schema!;
  const v = validatorFor(`webhook ${event}`, schema);
  if (!v(parseOr(body))) found.push(`webhook ${event}: ${errorsOf(v)} — body ${body.slice(0, 400)}`);
  return record(found);
}

function resolveParameter(ref: string): Json {
  const name = ref.replace('#/components/parameters/', '');
  return ((document.components as JsonObject).parameters as JsonObject)[name]!;
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function record(found: string[]): string[] {
  problems.push(...found);
  return found;
}
