/**
 * A typed client generated from the served document by a real generator (openapi-typescript, with
 * openapi-fetch) type-checks a small integration — quote → create → read → cancel — compiled by
 * the project's tsc, and runs it against a real server. The sample leans on what the document
 * says: a field documented as non-null where the server sends null (the old nullable form)
 * makes tsc refuse it, which the second test proves with that form put back.
 *
 * The rules of the bodies (issue #39 item 6) are checked with both generators, openapi-typescript
 * and @hey-api/openapi-ts: one table of bodies the API takes and of mistakes, each mistake refused
 * by both compiled clients (`@ts-expect-error`) and by the server (400), so the document says what
 * the server enforces.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { startOrdersApp } from '../orders/support.js';

const ROOT = resolve(import.meta.dirname, '../..');
const GENERATOR = join(ROOT, 'node_modules/openapi-typescript/bin/cli.js');
const HEY_API = join(ROOT, 'node_modules/@hey-api/openapi-ts/bin/run.js');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

/** The integrator's code: only the generated types and openapi-fetch. */
const SAMPLE = `import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

type Order = components['schemas']['OrderDetailsResponse'];
// What the document promises about values an integrator must handle.
const noProofYet: Order['proof'] = null;
const noDriverYet: Order['driver'] = null;
const notCancelled: Order['cancellation'] = null;
const orderNumber: components['schemas']['WebhookPayloadFlat']['order_id'] = 4820193746;
const platform: components['schemas']['Merchant']['integration_platform'] = '';
const notCashOnDelivery: Order['cod_amount'] = null;
const notCollectedYet: Order['cod'] = null;
// The tariff sets no courier pay: earnings document it as nullable.
const noDeliveryPay: components['schemas']['CourierEarningsResponse']['totals']['delivery_pay'] = null;

const [baseUrl, key] = process.argv.slice(2) as [string, string];
const client = createClient<paths>({ baseUrl: baseUrl + '/api/v1', headers: { authorization: 'Bearer ' + key } });

const quote = await client.POST('/shipping/quote', { body: { destination: { lat: -33.4154, lng: -70.5837 }, total_weight: 2 } });
if (!quote.data) throw new Error('quote failed: ' + JSON.stringify(quote.error));
const price: number = quote.data.price;

const created = await client.POST('/orders', {
  params: { header: { 'Idempotency-Key': 'sample-' + Date.now() } },
  body: {
    pickup: { address: 'Av. Providencia 1234', coords: { lat: -33.4214, lng: -70.6033 } },
    dropoff: { address: 'Av. Apoquindo 3000', coords: { lat: -33.4154, lng: -70.5837 } },
    customer_name: 'Camila Rojas',
    customer_phone: '+56912345678',
    // The delivery domain's bodies (issue #30): sizes, the ID check, the failed-attempt policy, the tip.
    items: [{ name: 'Vino', quantity: 2, weight_kg: 1.5, length_cm: 35, width_cm: 10, height_cm: 10 }],
    id_check: { required: true, min_age: 18 },
    failed_attempt_policy: 'return',
    tip: 500,
  },
});
if (!created.data) throw new Error('create failed: ' + JSON.stringify(created.error));

// A tip added: the key is a required header of this operation.
const tipped = await client.POST('/orders/{id}/tip', {
  params: { path: { id: created.data.booking_id }, header: { 'Idempotency-Key': 'tip-' + Date.now() } },
  body: { amount: 1500 },
});
if (!tipped.data) throw new Error('tip failed: ' + JSON.stringify(tipped.error));
const tip: number = tipped.data.tip;
const registered: boolean = created.data.isRegisteredUser;

const read = await client.GET('/orders/{id}', { params: { path: { id: created.data.booking_id } } });
if (!read.data) throw new Error('read failed: ' + JSON.stringify(read.error));
const order: Order = read.data;
const proofState = order.proof === null ? 'none' : order.proof.delivered_at;
const driverName = order.driver?.name ?? null;
const minAge: number | null = order.id_check?.min_age ?? null;
const policy: 'retry' | 'return' | 'dispose' = order.failed_attempt_policy;

const preview = await client.GET('/orders/{id}/cancellation', { params: { path: { id: order.booking_id } } });
if (!preview.data) throw new Error('preview failed: ' + JSON.stringify(preview.error));
const fee: number | null = preview.data.fee;

// The courier's failed-attempt report, as the courier app sends it.
type FailedAttemptBody = NonNullable<paths['/couriers/me/orders/{id}/failed-attempt']['post']['requestBody']>['content']['application/json'];
const attempt: FailedAttemptBody = { reason: 'recipient_absent', note: 'Nadie abre', coords: { lat: -33.4154, lng: -70.5837 } };

const cancelled = await client.POST('/orders/{id}/cancel', { params: { path: { id: order.booking_id } }, body: { reason: 'sample' } });
if (!cancelled.data) throw new Error('cancel failed: ' + JSON.stringify(cancelled.error));

const missing = await client.GET('/orders/{id}', { params: { path: { id: 'bk_unknown' } } });
const notFound = missing.error?.error.code;

console.log(JSON.stringify({
  price, registered, status: order.status, proofState, driverName, cancelled: cancelled.data.status, notFound, minAge, policy, fee, tip, orderTip: order.tip,
  checks: [noProofYet, noDriverYet, notCancelled, orderNumber, platform, notCashOnDelivery, notCollectedYet, noDeliveryPay, attempt.reason],
}));
`;

/**
 * Mistakes an integrator makes with the two request forms (issue #26 item 5): each line must be
 * refused by tsc (an unused @ts-expect-error is itself an error), the valid forms beside them not.
 */
const MISTAKES = `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

const client = createClient<paths>({ baseUrl: 'http://localhost:3000/api/v1' });
const who = { customer_name: 'Camila Rojas', customer_phone: '+56912345678' };
const here = { address: 'Av. Apoquindo 3000' };
const there = { lat: -33.4154, lng: -70.5837 };

// Both forms, as the spec shows them, type-check.
void client.POST('/shipping/quote', { body: { origin: { address: 'Av. Providencia 1234' }, destination: here, total_weight_kg: 2, package_type: 'box' } });
void client.POST('/shipping/quote', { body: { destination: 'Av. Apoquindo 3000, Las Condes', total_weight: 2 } });
void client.POST('/orders', { body: { ...who, pickup: here, dropoff: here, reference_id: 'R-1', items: [{ name: 'Polera', quantity: 1 }] } });
void client.POST('/orders', { body: { ...who, dropoff_address: 'Av. Apoquindo 3000', payment_mode: 'prepaid', customer_rut: '12.345.678-5' } });
void client.POST('/orders', { params: { header: { 'Idempotency-Key': 'k-1' } }, body: { ...who, dropoff: here } });
const play = { scenario: 'delivered', seed: 'ci-1', start_time: '2026-06-01T15:00:00Z' } as const;
void client.POST('/sandbox/runs', { body: { ...play, order: { ...who, dropoff: here } } });
void client.POST('/sandbox/runs', { body: { ...play, order_id: 'bk_01JHX3Z6Q8R2V4N7W9Y1A3C5E7' } });
// Cash on delivery (issue #30): the amount on both forms, the cash collected at the door, the report.
void client.POST('/orders', { body: { ...who, dropoff_address: 'Av. Apoquindo 3000', payment_mode: 'cash_on_delivery', cod_amount: 15990 } });
void client.POST('/orders', { body: { ...who, dropoff: here, payment_mode: 'cash_on_delivery', cod_amount: 15990 } });
const door = { driver_id: 'cr_1', coords: there, photo_url: 'https://cdn.example.com/p.jpg', signature_url: 'https://cdn.example.com/s.png' };
void client.POST('/orders/{id}/deliver', { params: { path: { id: 'bk_1' } }, body: { ...door, cod_collected: 15990 } });
void client.GET('/cod/report', { params: { query: { from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z', after: 'led_01JHX3Z6Q8R2V4N7W9Y1A3C5E7' } } }).then((r) => r.data?.lines[0]?.mismatch);
// Multi-stop (issue #30): stops instead of a drop-off, the route choice, the stop delivered.
const stops = [{ address: here, contact_name: 'Ana Pérez', contact_phone: '+56911111111' }, { address: 'Huérfanos 1000, Santiago', contact_name: 'Beto Díaz', contact_phone: '+56922222222' }];
void client.POST('/orders', { body: { ...who, stops, route: 'optimized' } });
void client.POST('/orders/{id}/deliver', { params: { path: { id: 'bk_1' } }, body: { ...door, stop_id: 'stp_1' } });

// A quote without a destination.
// @ts-expect-error
void client.POST('/shipping/quote', { body: { total_weight: 2 } });
// Both weight fields (Form B's destination).
// @ts-expect-error
void client.POST('/shipping/quote', { body: { destination: there, total_weight_kg: 1, total_weight: 50 } });
// Both weight fields (Form A's destination).
// @ts-expect-error
void client.POST('/shipping/quote', { body: { destination: here, total_weight_kg: 1, total_weight: 50 } });
// Form A's destination with Form B's weight.
// @ts-expect-error
void client.POST('/shipping/quote', { body: { destination: here, total_weight: 50 } });
// An order without a destination.
// @ts-expect-error
void client.POST('/orders', { body: { ...who, pickup: here } });
// Form B without payment_mode.
// @ts-expect-error
void client.POST('/orders', { body: { ...who, dropoff_address: 'Av. Apoquindo 3000' } });
// Both destinations.
// @ts-expect-error
void client.POST('/orders', { body: { ...who, dropoff: here, dropoff_address: 'Av. Apoquindo 3000', payment_mode: 'prepaid' } });
// A sandbox run with both an order to create and an existing one.
// @ts-expect-error
void client.POST('/sandbox/runs', { body: { ...play, order: { ...who, dropoff: here }, order_id: 'bk_01JHX3Z6Q8R2V4N7W9Y1A3C5E7' } });
// A sandbox run with neither.
// @ts-expect-error
void client.POST('/sandbox/runs', { body: { ...play } });
// The cash collected as text.
// @ts-expect-error
void client.POST('/orders/{id}/deliver', { params: { path: { id: 'bk_1' } }, body: { ...door, cod_collected: '15990' } });
// The header's other spelling.
// @ts-expect-error
void client.POST('/orders', { params: { header: { 'idempotency-key': 'k-1' } }, body: { ...who, dropoff: here } });
// A failed-attempt policy the API does not have.
// @ts-expect-error
void client.POST('/orders', { body: { ...who, dropoff: here, failed_attempt_policy: 'keep' } });
// An item's size as text.
// @ts-expect-error
void client.POST('/orders', { body: { ...who, dropoff: here, items: [{ name: 'Caja', quantity: 1, length_cm: '30' }] } });
// A failed attempt without a reason.
// @ts-expect-error
void client.POST('/couriers/me/orders/{id}/failed-attempt', { params: { path: { id: 'bk_1' } }, body: { coords: there } });
// A route order the API does not have.
// @ts-expect-error
void client.POST('/orders', { body: { ...who, stops, route: 'shortest' } });
// A stop without its contact.
// @ts-expect-error
void client.POST('/orders', { body: { ...who, stops: [{ address: here }] } });
// A tip without its required Idempotency-Key.
// @ts-expect-error
void client.POST('/orders/{id}/tip', { params: { path: { id: 'bk_1' } }, body: { amount: 1000 } });
void client.POST('/orders/{id}/tip', { params: { path: { id: 'bk_1' }, header: { 'Idempotency-Key': 'k-2' } }, body: { amount: 1000 } });
`;

/** Bodies of the rules table: coordinates throughout, so the server needs no geocoding beyond the gazetteer. */
const who = { customer_name: 'Camila Rojas', customer_phone: '+56912345678' };
const pickup = { address: 'Av. Providencia 1234', coords: { lat: -33.4214, lng: -70.6033 } };
const here = { address: 'Av. Apoquindo 3000, Las Condes', coords: { lat: -33.4154, lng: -70.5837 } };
const there = { lat: -33.4154, lng: -70.5837 };
const stops = [
  { address: here, contact_name: 'Ana Pérez', contact_phone: '+56911111111' },
  { address: { address: 'Huérfanos 1000, Santiago', coords: { lat: -33.4417, lng: -70.6541 } }, contact_name: 'Beto Díaz', contact_phone: '+56922222222' },
];
const formA = { ...who, pickup, dropoff: here, reference_id: 'R-1', items: [{ name: 'Polera', quantity: 1 }] };
/** The spec's Form B body, with `payment_mode` prepaid, then cash on delivery without an amount (legal: the spec's own example). */
const formB = { ...who, pickup, dropoff_address: 'Av. Apoquindo 3000, Las Condes', payment_mode: 'prepaid', customer_rut: '12.345.678-5', prep_time_mins: 10, order_notes: 'Timbre 2' };
const formBCod = { ...formB, payment_mode: 'cash_on_delivery' };
const multiStop = { ...who, pickup, stops, route: 'optimized' };
const play = { scenario: 'delivered', seed: 'gen-client', start_time: '2026-06-01T15:00:00Z' };

type Call = 'order' | 'quote' | 'sandboxRun';
const PATHS: Record<Call, string> = { order: '/orders', quote: '/shipping/quote', sandboxRun: '/sandbox/runs' };
type Row = [what: string, call: Call, body: object];

/** What the API takes: compiles with both clients, and the server answers 2xx. */
const TAKEN: Row[] = [
  ['Form A, prepaid by default', 'order', formA],
  ['Form B, prepaid (the spec body)', 'order', formB],
  ['Form B, cash on delivery without an amount (the spec body)', 'order', formBCod],
  ['Form B, cash on delivery with the amount', 'order', { ...formBCod, cod_amount: 15990 }],
  ['Form A, cash on delivery, an ID check at 21', 'order', { ...formA, payment_mode: 'cash_on_delivery', cod_amount: 15990, id_check: { required: true, min_age: 21 } }],
  ['Form A, prepaid said, an ID check at the default age', 'order', { ...formA, payment_mode: 'prepaid', id_check: { required: true } }],
  ['Multi-stop, prepaid', 'order', { ...multiStop, payment_mode: 'prepaid' }],
  ['Quote, Form A', 'quote', { origin: pickup, destination: here, total_weight_kg: 2, package_type: 'box' }],
  ['Quote, Form B', 'quote', { destination: there, total_weight: 2 }],
  ["A sandbox run's cash-on-delivery order", 'sandboxRun', { ...play, order: { ...formBCod, cod_amount: 15990 } }],
];

/** Mistakes: each refused by both generated clients at compile time and by the server (400 VALIDATION_ERROR). */
const REFUSED: Row[] = [
  ['A prepaid order with an amount to collect', 'order', { ...formB, cod_amount: 15990 }],
  ['An amount to collect without payment_mode (Form A: prepaid by default)', 'order', { ...formA, cod_amount: 15990 }],
  ["The same in a sandbox run's order", 'sandboxRun', { ...play, seed: 'gen-client-2', order: { ...formA, payment_mode: 'prepaid', cod_amount: 15990 } }],
  ['An ID check under 18', 'order', { ...formA, id_check: { required: true, min_age: 17 } }],
  ['An ID check over 99', 'order', { ...formA, id_check: { required: true, min_age: 100 } }],
  ['Stops and a Form B drop-off', 'order', { ...multiStop, dropoff_address: 'Av. Apoquindo 3000, Las Condes', payment_mode: 'prepaid' }],
  ['Stops and a Form A drop-off', 'order', { ...multiStop, dropoff: here }],
  ['A multi-stop order paid at the door', 'order', { ...multiStop, payment_mode: 'cash_on_delivery' }],
  ['Both drop-offs', 'order', { ...formA, dropoff_address: 'Av. Apoquindo 3000, Las Condes', payment_mode: 'prepaid' }],
  ['Form B without payment_mode', 'order', { ...who, dropoff_address: 'Av. Apoquindo 3000, Las Condes' }],
  ['An order without a destination', 'order', { ...who, pickup }],
  ['A quote with both weights (that disagree)', 'quote', { destination: there, total_weight_kg: 1, total_weight: 50 }],
];

/**
 * Refused by the server, yet compiled by both clients: TypeScript has no integer type, so
 * `type: integer` is `number` to either generator and a fraction of a peso type-checks.
 */
const SERVER_ONLY: Row[] = [['A fraction of a peso to collect', 'order', { ...formBCod, cod_amount: 15990.5 }]];

/** A sandbox run's webhook bodies read as each generator types them: by `event`, with no cast. */
const WEBHOOK_BODIES = `
export function bodies(run: SandboxRun): string[] {
  return run.webhooks.map(({ payload }) => {
    // A field of one body read before telling the bodies apart (the untyped object allowed it).
    // @ts-expect-error
    void payload.order_id;
    // A field no body has.
    // @ts-expect-error
    void payload.order_number;
    if (payload.event === 'batch.created') return payload.batch_id + ' ' + payload.order_ids.length;
    if (payload.event === undefined) return payload.status + ' #' + payload.order_id.toFixed(0);
    return payload.event + ' ' + payload.booking_id + ' ' + payload.status + ' ' + (payload.driver?.name ?? '');
  });
}
`;

/** The table as TypeScript: one call per line, each mistake under its @ts-expect-error (an unused one is an error). */
function rulesSource(prelude: string): string {
  const line = ([what, call, body]: Row, expectError: boolean) => `// ${what}\n${expectError ? '// @ts-expect-error\n' : ''}void ${call}(${JSON.stringify(body)});`;
  return [
    prelude,
    ...TAKEN.map((r) => line(r, false)),
    '// TypeScript has no integer type: compiles with either generator, refused by the server.',
    ...SERVER_ONLY.map((r) => line(r, false)),
    ...REFUSED.map((r) => line(r, true)),
    WEBHOOK_BODIES,
  ].join('\n');
}

/** openapi-typescript + openapi-fetch: the calls through the client, the bodies typed by the paths. */
const FETCH_RULES = rulesSource(`import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

const client = createClient<paths>({ baseUrl: 'http://localhost:3000/api/v1' });
type Body<P extends '/orders' | '/shipping/quote' | '/sandbox/runs'> = NonNullable<paths[P]['post']['requestBody']>['content']['application/json'];
const order = (body: Body<'/orders'>) => client.POST('/orders', { body });
const quote = (body: Body<'/shipping/quote'>) => client.POST('/shipping/quote', { body });
const sandboxRun = (body: Body<'/sandbox/runs'>) => client.POST('/sandbox/runs', { body });
type SandboxRun = components['schemas']['SandboxRunResponse']['run'];
`);

/** @hey-api/openapi-ts: its SDK functions (one per operationId) and types. */
const HEY_API_RULES = rulesSource(`import { createOrder, quoteShipping, startSandboxRun } from './client/sdk.gen';
import type { CreateOrderData, QuoteShippingData, SandboxRunResponse, StartSandboxRunData } from './client/types.gen';

const order = (body: CreateOrderData['body']) => createOrder({ body });
const quote = (body: QuoteShippingData['body']) => quoteShipping({ body });
const sandboxRun = (body: StartSandboxRunData['body']) => startSandboxRun({ body });
type SandboxRun = SandboxRunResponse['run'];
`);

/** hey-api's output imports without extensions and uses DOM types: a bundler project, as its users have. */
const HEY_API_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', strict: true, noUncheckedIndexedAccess: true,
    skipLibCheck: true, noEmit: true, lib: ['ES2022', 'DOM', 'DOM.Iterable'], types: [],
  },
  files: ['rules.ts'],
};

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noUncheckedIndexedAccess: true,
    skipLibCheck: true, outDir: 'out', types: ['node'], typeRoots: [join(ROOT, 'node_modules/@types')],
  },
  files: ['sample.ts'],
};

function run(command: string, args: string[], cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [command, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', (code) => done({ code: code ?? -1, out }));
  });
}

/** A project in a temp dir: the generated api.d.ts, the sample, and the repository's node_modules. */
async function generateAndCompile(documentJson: string, sample = SAMPLE, rules?: string): Promise<{ dir: string; generated: string; tsc: { code: number; out: string } }> {
  const dir = mkdtempSync(join(tmpdir(), 'exd-client-'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(join(dir, 'openapi.json'), documentJson);
  const gen = await run(GENERATOR, ['openapi.json', '-o', 'api.d.ts'], dir);
  expect(gen.code, gen.out).toBe(0);
  writeFileSync(join(dir, 'sample.ts'), sample);
  if (rules !== undefined) writeFileSync(join(dir, 'rules.ts'), rules);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ ...TSCONFIG, files: rules === undefined ? TSCONFIG.files : [...TSCONFIG.files, 'rules.ts'] }));
  return { dir, generated: readFileSync(join(dir, 'api.d.ts'), 'utf8'), tsc: await run(TSC, ['-p', 'tsconfig.json'], dir) };
}

/** The same with @hey-api/openapi-ts: its client and types under client/, the rules beside them. */
async function generateHeyApiAndCompile(documentJson: string): Promise<{ dir: string; tsc: { code: number; out: string } }> {
  const dir = mkdtempSync(join(tmpdir(), 'exd-hey-api-'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(join(dir, 'openapi.json'), documentJson);
  const gen = await run(HEY_API, ['-i', 'openapi.json', '-o', 'client'], dir);
  expect(gen.code, gen.out).toBe(0);
  writeFileSync(join(dir, 'rules.ts'), HEY_API_RULES);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(HEY_API_TSCONFIG));
  return { dir, tsc: await run(TSC, ['-p', 'tsconfig.json'], dir) };
}

/** The 1-based line of `text` in `source`. */
function lineOf(source: string, text: string): number {
  return source.split('\n').findIndex((l) => l.includes(text)) + 1;
}

describe('a client generated from the served document (openapi-typescript + openapi-fetch)', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let served: string;
  const dirs: string[] = [];

  beforeAll(async () => {
    t = await startOrdersApp();
    m = await t.createMerchant();
    const res = await api(`${t.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    served = JSON.stringify(res.body);
  });
  afterAll(async () => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await t?.stop();
  });

  it('type-checks quote → create (sizes, ID check, policy) → read → cancellation preview → cancel and runs it against the server', async () => {
    const { dir, generated, tsc } = await generateAndCompile(served);
    dirs.push(dir);
    expect(tsc.out).toBe('');
    expect(tsc.code).toBe(0);
    // The 10-digit webhook order_id is documented as a 64-bit integer to the generator's readers.
    expect(generated).toMatch(/Format: int64[\s\S]{0,200}order_id: number;/);
    const ran = await run(join(dir, 'out/sample.js'), [t.url, m.testKey], dir);
    expect(ran.code, ran.out).toBe(0);
    expect(JSON.parse(ran.out)).toMatchObject({
      price: expect.any(Number), registered: false, status: 'new', proofState: 'none', driverName: null, cancelled: 'cancelled', notFound: 'ORDER_NOT_FOUND',
      minAge: 18, policy: 'return', fee: 0, tip: 2000, orderTip: 2000,
    });
  }, 120_000);

  it('refuses the planted request-form mistakes at compile time (oneOf Form A / Form B, one header spelling, the delivery domain enums and types; the rules table)', async () => {
    const { dir, tsc } = await generateAndCompile(served, MISTAKES, FETCH_RULES);
    dirs.push(dir);
    expect(tsc.out).toBe('');
    expect(tsc.code).toBe(0);
  }, 120_000);

  it('fails to compile when a nullable field is documented the old way (allOf with a null type, read as non-null)', async () => {
    const doc = JSON.parse(served) as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
    const order = doc.components.schemas.OrderDetailsResponse!.properties;
    order.proof = { allOf: [{ $ref: '#/components/schemas/DeliveryProof' }, { type: ['object', 'null'] }] };
    const { dir, tsc } = await generateAndCompile(JSON.stringify(doc));
    dirs.push(dir);
    expect(tsc.code).not.toBe(0);
    expect(tsc.out).toMatch(/sample\.ts\(6,7\): error TS2322: Type 'null' is not assignable/);
  }, 120_000);

  it('the @hey-api/openapi-ts client refuses the same mistakes, takes the same bodies and types the webhook bodies by event', async () => {
    const { dir, tsc } = await generateHeyApiAndCompile(served);
    dirs.push(dir);
    expect(tsc.out).toBe('');
    expect(tsc.code).toBe(0);
  }, 120_000);

  it('with a left-out field documented as `false`, the hey-api client takes stops with a drop-off (it drops the property)', async () => {
    const doc = JSON.parse(served, (_key, value: unknown) =>
      typeof value === 'object' && value !== null && JSON.stringify((value as { allOf?: unknown }).allOf) === '[{"type":"string"},{"type":"number"}]' ? false : value,
    ) as object;
    const { dir, tsc } = await generateHeyApiAndCompile(JSON.stringify(doc));
    dirs.push(dir);
    expect(tsc.code).not.toBe(0);
    const expectErrorLine = lineOf(HEY_API_RULES, '// Stops and a Form B drop-off') + 1;
    expect(tsc.out).toContain(`rules.ts(${expectErrorLine},1): error TS2578: Unused '@ts-expect-error' directive.`);
  }, 120_000);

  it('the server takes the bodies of the table and refuses its mistakes, the fraction of a peso included (400 VALIDATION_ERROR)', async () => {
    for (const [what, call, body] of TAKEN) {
      const res = await api(`${t.url}/api/v1${PATHS[call]}`, { key: m.testKey, body });
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    }
    for (const [what, call, body] of [...REFUSED, ...SERVER_ONLY]) {
      const res = await api(`${t.url}/api/v1${PATHS[call]}`, { key: m.testKey, body });
      expect([res.status, res.body.error?.code], `${what}: ${JSON.stringify(res.body)}`).toEqual([400, 'VALIDATION_ERROR']);
    }
  }, 120_000);
});
