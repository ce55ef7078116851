/**
 * The OpenAPI registry for /api/v1 and the one helper every endpoint documents itself with.
 *
 * How to document an endpoint (the pattern; follow it for every new route):
 * 1. Add the route in rest/routes/<area>.ts as usual.
 * 2. In rest/openapi/paths/<area>.ts call `registerEndpoint({...})` once per method + path, with
 *    the path written exactly as in the Express route ('/orders/:id'). Pass the zod schema the
 *    handler parses as `body`/`query` (the rest/wire/ schema that maps onto the domain command, or
 *    the domain's own input schema; the very object, never a copy) and a wire
 *    schema from rest/openapi/responses.ts for each success status. The standard errors (auth,
 *    body parsing, rate limit, 500) are added from `auth`, `access` and the method; list only the
 *    endpoint's own domain codes in `errors` (e.g. ['ORDER_NOT_FOUND']).
 * 3. A new paths file is imported once in rest/openapi/document.ts.
 * test/rest/openapi.test.ts walks the Express router and fails for any /api/v1 route that is not
 * registered here with the same method and path.
 */
import { extendZodWithOpenApi, OpenAPIRegistry, type ResponseConfig, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z, type ZodObject, type ZodType } from 'zod';
import type { AccessLevel } from '../../src/domain/auth.js';
import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from '../../src/domain/errors.js';
import { idempotencyKeySchema } from '../../src/domain/idempotency.js';
import type { IntegrationName } from '../../src/domain/types.js';

extendZodWithOpenApi(z);

export const registry = new OpenAPIRegistry();

/**
 * A property an object leaves out (a field of another request form, `event` in a flat webhook
 * payload): zod refuses any value, and the document says so with a schema no value satisfies,
 * which generated clients type `never` (see normalize.ts).
 */
export const absent = (description: string) => z.never().openapi({ type: 'null', 'x-never': true, description }).optional();

// --- Common components -------------------------------------------------------------------------

registry.registerComponent('securitySchemes', 'bearerAuth', {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'API key',
  description: 'Authorization: Bearer <API key>. `ak_live_…` keys act in production, `ak_test_…` keys in the sandbox.',
});
registry.registerComponent('securitySchemes', 'apiKeyHeader', {
  type: 'apiKey',
  in: 'header',
  name: 'X-API-Key',
  description: 'The same API key in the X-API-Key header, for clients that cannot set Authorization.',
});
// The storefront platform signs its own calls: both headers together authenticate (no API key).
registry.registerComponent('securitySchemes', 'storefrontHmac', {
  type: 'apiKey',
  in: 'header',
  name: 'X-Shopify-Hmac-Sha256',
  description:
    "Base64 HMAC-SHA256 of the exact raw request body, keyed with the merchant's API secret (during a rotation overlap " +
    'the previous secret is accepted too). Goes with X-Shopify-Shop-Domain.',
});
registry.registerComponent('securitySchemes', 'storefrontShopDomain', {
  type: 'apiKey',
  in: 'header',
  name: 'X-Shopify-Shop-Domain',
  description: 'The shop host name; must be the storefront_domain set in the merchant settings. Goes with X-Shopify-Hmac-Sha256.',
});
// The courier app authenticates with the courier's own token, never a merchant key.
registry.registerComponent('securitySchemes', 'courierToken', {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'Courier token',
  description: 'Authorization: Bearer ct_… — the token an admin issued to the courier; its mode (live or sandbox) is the courier\'s.',
});

// The operators' REST paths (issue #39) take the ADMIN_TOKEN.
registry.registerComponent('securitySchemes', 'adminToken', {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'Admin token',
  description: 'Authorization: Bearer <ADMIN_TOKEN> — the operators\' automation credential (failures count towards the address\'s lockout).',
});

// Or the courier app's session cookie (issue #27); non-GET requests with it carry X-Courier-CSRF.
registry.registerComponent('securitySchemes', 'courierSession', {
  type: 'apiKey',
  in: 'cookie',
  name: 'exd_courier_session',
  description:
    'The courier app\'s session (`__Host-exd_courier_session` over HTTPS), set by POST /couriers/sessions from a one-time sign-in link. ' +
    'With it, every request but GET must send `X-Courier-CSRF` (any non-empty value), else 403 CSRF_REQUIRED; an ended session is 401 INVALID_SESSION.',
});

const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': 'Requests allowed per minute for this API key or courier token (on public endpoints: the anonymous budget of the client address).',
  'RateLimit-Remaining': 'Requests left in the current window.',
  'RateLimit-Reset': 'Seconds until the window resets.',
} as const;
for (const [name, description] of Object.entries(RATE_LIMIT_HEADERS)) {
  registry.registerComponent('headers', name, {
    description: `${description} Sent once the request has been counted (not on 401s or body-parsing errors).`,
    schema: { type: 'integer', minimum: 0 },
  });
}
registry.registerComponent('headers', 'Retry-After', {
  description: 'Seconds to wait before retrying.',
  schema: { type: 'integer', minimum: 1 },
});
registry.registerComponent('headers', 'Idempotent-Replayed', {
  description:
    '`true` when this is the answer of an earlier request with the same `Idempotency-Key`, given again without running the ' +
    'request (absent otherwise).',
  schema: { type: 'string', enum: ['true'] },
});
registry.registerComponent('headers', 'X-Request-Id', {
  description: 'The request id (echoed from the request when it is a safe token); quote it when reporting a problem.',
  schema: { type: 'string' },
});

export const errorCodeSchema = registry.register(
  'ErrorCode',
  z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]).openapi({
    description: `The closed list of error codes and their HTTP statuses:\n\n${ERROR_CODES.map((c) => `- \`${c}\` → ${ERROR_STATUS[c]}`).join('\n')}`,
  }),
);

export const errorResponseSchema = registry.register(
  'ErrorResponse',
  z.object({
    success: z.literal(false),
    error: z.object({
      code: errorCodeSchema,
      message: z.string().openapi({ description: 'Human-readable; never contains internals.' }),
      fields: z
        .array(z.object({ field: z.string().openapi({ example: 'prep_time_mins' }), message: z.string() }))
        .optional()
        .openapi({ description: 'Per-field problems, on VALIDATION_ERROR.' }),
      details: z.record(z.string(), z.unknown()).optional().openapi({ description: 'Extra machine-readable context (e.g. a distance).' }),
    }),
  }),
);

const testModeHeaders = z.object({
  'X-Test-Mode': z
    .enum(['true', 'false'])
    .optional()
    .openapi({ description: '`true` asserts that the key is a sandbox key; a live key is then refused with TEST_MODE_MISMATCH.' }),
});

const idempotencyKeyHeaders = z.object({
  'Idempotency-Key': idempotencyKeySchema.optional().openapi({
    description:
      'Printable ASCII, up to 255 characters. Kept 24 h per caller (merchant and mode, or courier) and operation: the same key with ' +
      'the same request answers what the first request answered (its status and body, 4xx errors included) without running it again; ' +
      'with another request, 422 IDEMPOTENCY_KEY_REUSED; while the first request still runs, 409 IDEMPOTENCY_KEY_IN_FLIGHT.',
    example: 'cancel-bk_01JHX3Z6-1',
  }),
});

// --- The helper --------------------------------------------------------------------------------

/**
 * `apiKeyOrStorefrontHmac`: an API key, or the storefront platform's signature headers
 * (X-Shopify-Hmac-Sha256 over the raw body + X-Shopify-Shop-Domain).
 */
export type EndpointAuth = 'public' | 'apiKey' | 'apiKeyOrStorefrontHmac' | 'courierToken' | 'adminToken';
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface EndpointResponse {
  description: string;
  /** The wire schema of the body; omit for an empty body. */
  schema?: ZodType;
  /** Defaults to application/json. */
  contentType?: string;
}

export interface EndpointSpec {
  method: Method;
  /** Relative to /api/v1 and written as in the Express route: '/orders/:id'. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: EndpointAuth;
  /** apiKey endpoints: the `requireMerchant` level, which decides the 403s (default 'operate'). */
  access?: AccessLevel;
  /** apiKey endpoints gated on an integration's approval (`requireMerchant({integration})`). */
  integration?: IntegrationName;
  /** The schema the handler parses (rest/wire/ or the domain's own): the very object. */
  body?: ZodType;
  /** Shown as the request example (domain schemas carry no OpenAPI metadata of their own). */
  bodyExample?: Record<string, unknown>;
  /** Default true; false when the body may be left out (e.g. an optional cancellation reason). */
  bodyRequired?: boolean;
  query?: ZodObject;
  params?: ZodObject;
  /** Request headers of the endpoint's own (e.g. idempotency-key), beside X-Test-Mode. */
  headers?: ZodObject;
  /** Honours the `Idempotency-Key` header (issue #17 item 5): documents the header and its errors. */
  idempotent?: boolean;
  /**
   * The statuses whose answer may be a replay, declaring `Idempotent-Replayed`. Default for
   * `idempotent` endpoints: every success, and every 4xx a key keeps (all but 401, 403 and the key's own 409/422).
   */
  replayed?: readonly number[];
  /** Success (and other non-error) responses by status. */
  responses: Record<number, EndpointResponse>;
  /** Domain error codes this endpoint returns beyond the standard ones. */
  errors?: readonly ErrorCode[];
  /** The error body when the endpoint extends ErrorResponse (default ErrorResponse). */
  errorSchema?: ZodType;
  /** Default true: every /api/v1 route is rate-limited, per key or courier token, or from the anonymous budget of the client address. */
  rateLimited?: boolean;
}

const BODY_METHODS: ReadonlySet<Method> = new Set(['post', 'put', 'patch']);
const registered = new Set<string>();
const operationIds = new Set<string>();

/** Documents one method + path; throws on a duplicate so two modules cannot claim one route. */
export function registerEndpoint(spec: EndpointSpec): void {
  const path = toOpenApiPath(spec.path);
  const key = `${spec.method.toUpperCase()} ${path}`;
  if (registered.has(key)) throw new Error(`OpenAPI: ${key} is registered twice`);
  if (operationIds.has(spec.operationId)) throw new Error(`OpenAPI: operationId ${spec.operationId} is used twice`);
  registered.add(key);
  operationIds.add(spec.operationId);

  const rateLimited = spec.rateLimited ?? true;
  const codes = errorCodesOf(spec, rateLimited);
  const replayed = new Set(spec.replayed ?? (spec.idempotent ? replayableStatuses(spec, codes) : []));
  const errors = errorResponses(codes, rateLimited, spec.errorSchema ?? errorResponseSchema, replayed);
  const clash = Object.keys(spec.responses).find((status) => status in errors);
  if (clash) throw new Error(`OpenAPI: ${key} documents ${clash} both as a response and as an error status`);
  // X-Test-Mode goes with merchant keys only; a courier token carries its own mode.
  const keyed = spec.auth === 'apiKey' || spec.auth === 'apiKeyOrStorefrontHmac';
  const own = spec.idempotent ? idempotencyKeyHeaders.extend(spec.headers?.shape ?? {}) : spec.headers;
  const headers = keyed ? testModeHeaders.extend(own?.shape ?? {}) : own;
  const route: RouteConfig = {
    method: spec.method,
    path,
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description && { description: spec.description }),
    tags: spec.tags,
    security: SECURITY[spec.auth],
    request: {
      ...(spec.body && {
        body: { required: spec.bodyRequired ?? true, content: { 'application/json': { schema: spec.body, ...(spec.bodyExample && { example: spec.bodyExample }) } } },
      }),
      ...(spec.query && { query: documentedQuery(spec.query) }),
      ...(spec.params && { params: spec.params }),
      ...(headers && { headers }),
    },
    responses: {
      ...Object.fromEntries(Object.entries(spec.responses).map(([status, r]) => [status, successResponse(r, rateLimited, replayed.has(Number(status)))])),
      ...errors,
    },
  };
  registry.registerPath(route);
}

type SecurityRequirements = NonNullable<RouteConfig['security']>;
const API_KEY_SECURITY: SecurityRequirements = [{ bearerAuth: [] }, { apiKeyHeader: [] }];
const SECURITY: Record<EndpointAuth, SecurityRequirements> = {
  public: [],
  apiKey: API_KEY_SECURITY,
  apiKeyOrStorefrontHmac: [...API_KEY_SECURITY, { storefrontHmac: [], storefrontShopDomain: [] }],
  courierToken: [{ courierToken: [] }, { courierSession: [] }],
  adminToken: [{ adminToken: [] }],
};

/**
 * Query strings are coerced (`z.coerce.number().pipe(prepTimeSchema)`); the generator sees only the
 * coercing input and documents "number or null". A coerced field is documented by its output schema.
 */
function documentedQuery(query: ZodObject): ZodObject {
  const shape = Object.fromEntries(
    Object.entries(query.shape as Record<string, ZodType>).map(([name, field]) => {
      const optional = field instanceof z.ZodOptional;
      const inner = (optional ? field.unwrap() : field) as ZodType;
      if (!(inner instanceof z.ZodPipe) || !(inner.in as { _zod: { def: { coerce?: boolean } } })._zod.def.coerce) return [name, field];
      const output = inner.out as ZodType;
      return [name, optional ? output.optional() : output];
    }),
  );
  return z.object(shape);
}

/** '/orders/:id' → '/orders/{id}'. */
export function toOpenApiPath(expressPath: string): string {
  return expressPath.replace(/:(\w+)/g, '{$1}');
}

/** The error codes an endpoint can answer with: what its middleware stack adds, plus its own. */
export function errorCodesOf(spec: EndpointSpec, rateLimited = spec.rateLimited ?? true): ErrorCode[] {
  const codes = new Set<ErrorCode>();
  if (spec.body || BODY_METHODS.has(spec.method)) {
    // express.json() and requireJsonBody() run for every body-carrying request.
    for (const c of ['MALFORMED_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'] as const) codes.add(c);
  }
  if (spec.body || spec.query || spec.params) codes.add('VALIDATION_ERROR');
  // Authorization and X-API-Key carrying two different keys.
  if (spec.auth !== 'public') codes.add('VALIDATION_ERROR');
  if (spec.auth === 'apiKeyOrStorefrontHmac') codes.add('INVALID_SIGNATURE');
  if (spec.auth === 'courierToken') {
    codes.add('INVALID_COURIER_TOKEN');
    codes.add('INVALID_SESSION');
    if (spec.method !== 'get') codes.add('CSRF_REQUIRED');
  }
  else if (spec.auth === 'adminToken') codes.add('INVALID_ADMIN_TOKEN');
  else if (spec.auth !== 'public') {
    codes.add('INVALID_API_KEY');
    codes.add('TEST_MODE_MISMATCH');
    const access = spec.access ?? 'operate';
    if (access !== 'profile') codes.add('ACCOUNT_SUSPENDED');
    if (access === 'operate' || spec.integration) codes.add('INTEGRATION_IN_REVIEW');
  }
  if (spec.idempotent) for (const c of ['VALIDATION_ERROR', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_FLIGHT'] as const) codes.add(c);
  for (const c of spec.errors ?? []) codes.add(c);
  if (rateLimited) codes.add('RATE_LIMITED');
  codes.add('INTERNAL_ERROR');
  // Any endpoint may need a backing service (the store, if only for credentials) that cannot answer in
  // time; one that documents its own 503 (health) says what it answers then.
  if (!(503 in spec.responses)) codes.add('SERVICE_UNAVAILABLE');
  return [...codes];
}

function headerRefs(names: readonly string[]) {
  return Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));
}

function commonHeaders(rateLimited: boolean, extra: string[] = []) {
  return headerRefs(['X-Request-Id', ...(rateLimited ? Object.keys(RATE_LIMIT_HEADERS) : []), ...extra]);
}

/** What an idempotency record keeps and answers again: the successes and the 4xx errors of the write itself. */
function replayableStatuses(spec: EndpointSpec, codes: readonly ErrorCode[]): number[] {
  const notKept = new Set<ErrorCode>(['IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_FLIGHT']);
  const errors = codes.filter((c) => !notKept.has(c)).map((c) => ERROR_STATUS[c]).filter((s) => s < 500 && s !== 401 && s !== 403);
  return [...Object.keys(spec.responses).map(Number), ...errors];
}

function successResponse(r: EndpointResponse, rateLimited: boolean, replayed: boolean): ResponseConfig {
  return {
    description: r.description,
    headers: commonHeaders(rateLimited, replayed ? ['Idempotent-Replayed'] : []),
    ...(r.schema && { content: { [r.contentType ?? 'application/json']: { schema: r.schema } } }),
  };
}

/** One response per HTTP status, listing the codes that map to it in the one status table. */
function errorResponses(codes: ErrorCode[], rateLimited: boolean, schema: ZodType, replayed: ReadonlySet<number>): Record<string, ResponseConfig> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, ResponseConfig> = {};
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[status] = {
      description: `Error: ${statusCodes.map((c) => `\`${c}\``).join(', ')}`,
      headers: commonHeaders(rateLimited, [...(status === 429 || status === 503 ? ['Retry-After'] : []), ...(replayed.has(status) ? ['Idempotent-Replayed'] : [])]),
      content: { 'application/json': { schema } },
    };
  }
  return responses;
}
