/**
 * GraphQL over HTTP: every root field of the schema (queries, mutations, subscriptions over SSE)
 * with generated variables — well-typed but hostile values, and values of the wrong type — under
 * every kind of credential; random and corrupted documents; depth, alias, directive and token
 * bombs; and transport junk (content types, batching, GET mutations, bad JSON).
 */
import fc from 'fast-check';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLOutputType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSchema } from '../../schema/index.js';
import { ADMIN_TOKEN } from '../helpers/app.js';
import {
  expectAppIntact,
  expectGraphQLAnswer,
  expectMemoryBounded,
  fcParams,
  fuzzResponse,
  hostileString,
  hostileValue,
  memorySnapshot,
  runsFor,
  startFuzzApp,
  FUZZ_RUNS,
  timeoutFor,
  type FuzzApp,
  type FuzzResponse,
} from './support.js';

type Kind = 'query' | 'mutation' | 'subscription';

interface RootField {
  kind: Kind;
  field: GraphQLField<unknown, unknown>;
  /** Who may call it (Pothos authScopes): merchant, courier, admin, or anyone. */
  scope: 'merchant' | 'courier' | 'admin' | 'public';
  document: string;
}

/** A selection set of every argument-free field, two levels deep, unions by member. */
function selectionOf(type: GraphQLOutputType | GraphQLNamedType, depth: number): string {
  const named = getNamedType(type);
  if (isLeafType(named)) return '';
  if (isUnionType(named)) return `{ __typename ${named.getTypes().map((t) => `... on ${t.name} ${selectionOf(t, depth + 1)}`).join(' ')} }`;
  if (!isObjectType(named) && !isInterfaceType(named)) return '';
  const fields = Object.values(named.getFields()).filter((f) => f.args.length === 0);
  const parts = fields.filter((f) => isLeafType(getNamedType(f.type))).map((f) => f.name);
  if (depth < 2) parts.push(...fields.filter((f) => !isLeafType(getNamedType(f.type))).map((f) => `${f.name} ${selectionOf(f.type, depth + 1)}`));
  return `{ __typename ${parts.join(' ')} }`;
}

function rootFields(): RootField[] {
  const schema = buildSchema();
  const roots: Array<[Kind, ReturnType<typeof schema.getQueryType>]> = [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
    ['subscription', schema.getSubscriptionType()],
  ];
  return roots.flatMap(([kind, type]) =>
    Object.values(type?.getFields() ?? {}).map((field) => {
      const scopes = ((field.extensions as { pothosOptions?: { authScopes?: Record<string, boolean> } }).pothosOptions?.authScopes ?? {}) as Record<string, boolean>;
      const scope = (['admin', 'courier', 'merchant'] as const).find((s) => scopes[s]) ?? 'public';
      const defs = field.args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
      const args = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
      const document = `${kind} Fuzz${defs ? `(${defs})` : ''} { ${field.name}${args ? `(${args})` : ''} ${selectionOf(field.type, 0)} }`;
      return { kind, field, scope, document };
    }),
  );
}

const VALID_DATES = ['2024-01-01T00:00:00Z', new Date().toISOString(), '2099-12-31T23:59:59.999Z', '1970-01-01T00:00:00.000Z'];

/** A value for a GraphQL input type: mostly well-typed (hostile within the type), sometimes of the wrong type. */
function valueFor(type: GraphQLInputType, ids: string[], argName: string): fc.Arbitrary<unknown> {
  const typed = ((): fc.Arbitrary<unknown> => {
    if (isNonNullType(type)) return valueFor(type.ofType, ids, argName);
    if (isListType(type)) return fc.array(valueFor(type.ofType, ids, argName), { maxLength: 6 });
    if (isEnumType(type)) return fc.constantFrom(...type.getValues().map((v) => v.name));
    if (isInputObjectType(type)) {
      const fields = Object.values(type.getFields());
      return fc.record(Object.fromEntries(fields.map((f) => [f.name, valueFor(f.type, ids, f.name)])), {
        requiredKeys: fields.filter((f) => isNonNullType(f.type)).map((f) => f.name),
      });
    }
    if (isScalarType(type)) {
      switch (type.name) {
        case 'Int':
          return fc.oneof(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.constantFrom(0, -1, 1, 100, 101, 1000, 2 ** 31 - 1));
        case 'Float':
          return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, -0, -33.42, -70.6, 90.0001, 1e308));
        case 'Boolean':
          return fc.boolean();
        case 'DateTime':
          return fc.oneof(fc.constantFrom(...VALID_DATES), hostileString);
        case 'ID':
          return fc.oneof(ids.length ? fc.constantFrom(...ids) : hostileString, hostileString, fc.integer());
        default:
          return /id$/i.test(argName) && ids.length ? fc.oneof(fc.constantFrom(...ids), hostileString) : hostileString;
      }
    }
    return fc.constant(null);
  })();
  const optional = isNonNullType(type) ? typed : fc.oneof({ arbitrary: typed, weight: 4 }, { arbitrary: fc.constant(null), weight: 1 });
  return fc.oneof({ arbitrary: optional, weight: 8 }, { arbitrary: hostileValue, weight: 1 });
}

/** Reads a response; an event stream (a subscription over SSE) only until its first event. */
async function readAnswer(res: Response, controller: AbortController): Promise<FuzzResponse> {
  let text = '';
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const reader = res.body!.getReader();
    const deadline = setTimeout(() => controller.abort(), 300);
    try {
      while (!/event: (next|complete)/.test(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString('utf8');
      }
    } catch {
      // aborted: a live subscription with nothing to say yet
    } finally {
      clearTimeout(deadline);
      controller.abort();
    }
    const data = /event: next\ndata: (.*)\n/.exec(text)?.[1];
    text = data ?? '{"data":{}}';
  } else {
    text = await res.text();
  }
  return fuzzResponse(res, text);
}

describe('fuzz: GraphQL documents, variables and transport', () => {
  let app: FuzzApp;
  let memoryBefore: ReturnType<typeof memorySnapshot>;
  let fields: RootField[];
  let ids: string[];
  let count = 0;

  beforeAll(async () => {
    app = await startFuzzApp();
    fields = rootFields();
    // A second merchant for the admin mutations to act on (suspensions, rotations), never the fuzz merchant.
    const victim = await app.t.createMerchant({ name: 'Admin Fuzz Target' });
    ids = [...app.ids.orders, ...app.ids.batches, ...app.ids.endpoints, ...app.ids.deliveries, app.courier.id, victim.merchantId];
    memoryBefore = memorySnapshot();
  });
  afterAll(async () => {
    console.log(`fuzz graphql: ${count} requests (FUZZ_RUNS=${FUZZ_RUNS})`);
    await app?.t.stop();
  });

  const credentials = () => ({
    merchant: `Bearer ${app.merchant.testKey}`,
    live: `Bearer ${app.merchant.liveKey}`,
    courier: `Bearer ${app.courier.token}`,
    admin: `Bearer ${ADMIN_TOKEN}`,
  });

  /** The credential a field wants most of the time; any other (or none, or junk) otherwise. */
  const credentialFor = (scope: RootField['scope']) => {
    const c = credentials();
    const own = scope === 'public' ? c.merchant : c[scope];
    return fc.oneof(
      { arbitrary: fc.constant<string | undefined>(own), weight: 6 },
      { arbitrary: fc.constantFrom<string | undefined>(c.merchant, c.live, c.courier, c.admin, undefined), weight: 2 },
      { arbitrary: fc.oneof(hostileString, fc.constantFrom('Bearer ', 'Bearer ak_test_x', 'Bearer ct_x', 'Basic x')).map((s) => s.replace(/[^\t\x20-\x7e\x80-\xff]/g, '')), weight: 1 },
    );
  };

  async function post(body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string>, method = 'POST', query = ''): Promise<FuzzResponse> {
    count++;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 15_000);
    try {
      const res = await fetch(`${app.t.url}/graphql${query}`, {
        method,
        headers,
        ...(method !== 'GET' && { body }),
        signal: controller.signal,
      });
      return await readAnswer(res, controller);
    } finally {
      clearTimeout(timer);
    }
  }

  it('covers every root field of the schema', () => {
    const names = fields.map((f) => `${f.kind} ${f.field.name}`);
    expect(names).toEqual(expect.arrayContaining(['query order', 'mutation createOrder', 'mutation adminCreateMerchant', 'subscription tracking', 'mutation courierReportPosition']));
    expect(names.length).toBeGreaterThanOrEqual(40);
  });

  it('every operation with generated variables and credentials: no 5xx, no masked crash, errors as an errors array', async () => {
    const perField = runsFor(0.12 / Math.max(1, fields.length || 43));
    for (const root of fields) {
      const variables = fc.record(Object.fromEntries(root.field.args.map((a) => [a.name, valueFor(a.type, ids, a.name)])), { requiredKeys: [] });
      const accept = root.kind === 'subscription' ? fc.constantFrom('text/event-stream', 'application/graphql-response+json, application/json') : fc.constant('application/graphql-response+json, application/json');
      await fc.assert(
        fc.asyncProperty(variables, credentialFor(root.scope), accept, async (vars, authorization, acceptHeader) => {
          const body = JSON.stringify({ query: root.document, variables: vars });
          const res = await post(body, { 'content-type': 'application/json', accept: acceptHeader, ...(authorization !== undefined && { authorization }) });
          expectGraphQLAnswer(res, `${root.document.slice(0, 120)} ${body.slice(0, 300)}`);
        }),
        fcParams(perField),
      );
    }
  }, timeoutFor(FUZZ_RUNS * 0.12));

  it('random and corrupted documents: parse and validation errors, never a 5xx', async () => {
    const TOKENS = ['{', '}', '(', ')', '[', ']', ':', '!', '$x', '$id', '...', 'on', 'query', 'mutation', 'subscription', 'fragment', 'F', '@include(if: true)', '@skip(if: $x)', '"str"', '"""block"""', '1', '-1.5e10', 'true', 'null', 'viewer', 'order', 'orders', 'id', 'mode', '__typename', '__schema', '__type(name: "Order")', 'nope', '#', '\n', ',', '=', '|', '&'];
    const document = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.string({ unit: 'binary', maxLength: 100 }),
      fc.array(fc.constantFrom(...TOKENS), { maxLength: 60 }).map((t) => t.join(' ')),
      fc.tuple(fc.constantFrom(...fields.map((f) => f.document)), fc.nat(), fc.string({ maxLength: 5 })).map(([d, n, junk]) => {
        const at = n % (d.length + 1);
        return d.slice(0, at) + junk + d.slice(at + (n % 3));
      }),
      fc.tuple(fc.constantFrom(...fields.map((f) => f.document)), fc.string({ minLength: 1, maxLength: 12 })).map(([d, name]) => d.replace(/\{ __typename /, `{ __typename ${name.replace(/[^_A-Za-z0-9]/g, '') || 'x'} `)),
    );
    const operationName = fc.option(fc.oneof(fc.constantFrom('Fuzz', 'Other', '', '__proto__'), fc.string({ maxLength: 10 })), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(document, operationName, fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }), async (query, op, variables) => {
        const body = JSON.stringify({ query, ...(op !== undefined && { operationName: op }), ...(variables !== undefined && { variables }) });
        const res = await post(body, { 'content-type': 'application/json', authorization: credentials().merchant });
        expectGraphQLAnswer(res, body.slice(0, 300));
      }),
      fcParams(runsFor(0.04)),
    );
  }, timeoutFor(FUZZ_RUNS * 0.04));

  it('depth, alias, directive, token and fragment bombs are refused (not 5xx)', async () => {
    const bomb = fc.oneof(
      fc.integer({ min: 16, max: 5_000 }).map((n) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: viewer { mode }`).join(' ')} }`),
      fc.constantFrom(11, 50, 1_000, 10_000).map((n) => `{ ${'viewer { merchant { '.repeat(Math.ceil(n / 2))}id${' } }'.repeat(Math.ceil(n / 2))} }`),
      fc.constantFrom(12, 100, 10_000).map((n) => `{ ${'__schema { types { fields { type { ofType { '.repeat(Math.ceil(n / 5))}name${' } } } } }'.repeat(Math.ceil(n / 5))} }`),
      fc.integer({ min: 21, max: 3_000 }).map((n) => `{ viewer ${'@include(if: true) '.repeat(n)}{ mode } }`),
      fc.integer({ min: 2_001, max: 20_000 }).map((n) => `{ viewer { ${'mode '.repeat(n)}} }`),
      fc.constant('query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }'),
      fc.integer({ min: 2, max: 500 }).map((n) => Array.from({ length: n }, (_, i) => `query Q${i} { viewer { mode } }`).join('\n')),
      fc.integer({ min: 10, max: 2_000 }).map((n) => `{ orders(first: 100) { __typename ... on QueryOrdersSuccess { data { ${Array.from({ length: n }, (_, i) => `n${i}: nodes { id events { status } }`).join(' ')} } } } }`),
      fc.constant(`{ __schema { types { name fields { name args { name type { name } } type { name ofType { name ofType { name } } } } } } }`),
    );
    await fc.assert(
      fc.asyncProperty(bomb, async (query) => {
        const res = await post(JSON.stringify({ query }), { 'content-type': 'application/json', authorization: credentials().merchant });
        expectGraphQLAnswer(res, query.slice(0, 200));
      }),
      fcParams(runsFor(0.02)),
    );
  }, timeoutFor(FUZZ_RUNS * 0.02));

  it('transport junk: content types, bodies that are not GraphQL requests, batching, GET mutations', async () => {
    const CONTENT_TYPES = ['application/json', 'application/graphql', 'application/graphql-response+json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=xx', 'application/json; charset=latin1', '', 'image/png'];
    const bodies = fc.oneof(
      fc.constantFrom('', '{', 'null', '[]', '[{"query":"{ viewer { mode } }"}]', '{"query": 1}', '{"query": null}', '{"query": ["{ viewer { mode } }"]}', '{"variables": "x", "query": "{ viewer { mode } }"}',
        '{"query": "{ viewer { mode } }", "extensions": {"persistedQuery": {"version": 1, "sha256Hash": "00"}}}', '{"query": "{ viewer { mode } }", "operationName": 5}', '{"__proto__": {"polluted": "yes"}, "query": "{ viewer { mode } }"}',
        '--xx\r\nContent-Disposition: form-data; name="operations"\r\n\r\n{"query":"mutation($f: Upload) { x(f: $f) }","variables":{"f":null}}\r\n--xx\r\nContent-Disposition: form-data; name="map"\r\n\r\n{"0":["variables.f"]}\r\n--xx\r\nContent-Disposition: form-data; name="0"; filename="a.txt"\r\n\r\nhello\r\n--xx--\r\n',
        'query=%7B%20viewer%20%7B%20mode%20%7D%20%7D'),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      fc.uint8Array({ maxLength: 100 }),
    );
    const method = fc.constantFrom('POST', 'POST', 'GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS');
    const query = fc.oneof(
      fc.constant(''),
      fc.constantFrom(...fields.map((f) => `?query=${encodeURIComponent(f.document)}`)),
      fc.string({ maxLength: 40 }).map((s) => `?query=${encodeURIComponent(s)}&variables=${encodeURIComponent(s)}`),
      fc.constantFrom('?query={viewer{mode}}&variables=%7B', '?extensions=%7B%22persistedQuery%22%3A1%7D', '?query=mutation%7BcourierSetDuty(onDuty%3Atrue)%7B__typename%7D%7D'),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...CONTENT_TYPES), bodies, method, query, async (type, body, m, q) => {
        const res = await post(body, { ...(type && { 'content-type': type }), authorization: credentials().merchant }, m, q);
        const what = `${m} /graphql${q.slice(0, 100)} ${type} ${typeof body === 'string' ? body.slice(0, 150) : `<${body.length} bytes>`}`;
        expectGraphQLAnswer(res, what);
      }),
      fcParams(runsFor(0.03)),
    );
  }, timeoutFor(FUZZ_RUNS * 0.03));

  it('the app is intact afterwards: health answers, nothing logged at error level, no prototype pollution', async () => {
    await expectAppIntact(app);
  });

  it('memory stays bounded', () => {
    expectMemoryBounded(memoryBefore, 'fuzz graphql');
  });
});
