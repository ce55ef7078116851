import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../../src/domain/types.js';
import { createRestApp } from '../../rest/app.js';
import { errorResponseSchema, registry, toOpenApiPath } from '../../rest/openapi/registry.js';
import { buildOpenApiDocument } from '../../rest/openapi/document.js';
import { healthSchema, merchantMeResponseSchema, merchantSettingsUpdatedSchema } from '../../rest/openapi/responses.js';
import { ERROR_CODES } from '../../src/domain/errors.js';
import { erpRateSchema } from '../../src/domain/integrations/erp.js';
import { pluginQuoteSchema } from '../../src/domain/integrations/plugin.js';
import { carrierServiceRequestSchema } from '../../src/domain/integrations/storefront.js';
import { createMetrics } from '../../src/metrics.js';
import { merchantSettingsInputSchema, merchantSettingsPatchSchema } from '../../rest/wire/merchants.js';
import { quoteRequestBody } from '../../rest/wire/quotes.js';
import { createOrderBody } from '../../rest/wire/orders.js';
import { createOrderForms, quoteRequestForms } from '../../rest/openapi/request-forms.js';
import { api, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { documentedOperations, expectWireShape, expressRoutes } from '../helpers/openapi.js';

const CHROMIUM = '/usr/bin/chromium';

describe('OpenAPI document and reference page', () => {
  let t: TestApp;
  let merchant: MerchantCredentials;
  let doc: Awaited<ReturnType<typeof api>>['body']; // the parsed JSON, as the api() helper types it

  beforeAll(async () => {
    t = await startTestApp({ env: { PUBLIC_RATE_LIMIT_PER_MIN: '1000' } });
    merchant = await t.createMerchant();
    const res = await api(`${t.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    doc = res.body;
  });
  afterAll(() => t?.stop());

  it('is a public OpenAPI 3.1 document for API version 1.2.0 under /api/v1', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.version).toBe('1.2.0');
    expect(doc.servers).toEqual([{ url: '/api/v1' }]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.apiKeyHeader).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(doc).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });

  it('validates against the OpenAPI 3.1 schema (openapi-spec-validator)', (ctx) => {
    const probe = spawnSync('python3', ['-c', 'import openapi_spec_validator'], { encoding: 'utf8' });
    if (probe.status !== 0) {
      console.log('skip: python3 -m openapi_spec_validator is not available (pip install openapi-spec-validator)');
      return ctx.skip();
    }
    const dir = mkdtempSync(join(tmpdir(), 'exd-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(doc));
      const run = spawnSync('python3', ['-m', 'openapi_spec_validator', '--schema', '3.1', '--validation-errors', 'all', file], {
        encoding: 'utf8',
      });
      expect(run.stdout.slice(0, 4000) + run.stderr.slice(0, 4000)).toContain('OK');
      expect(run.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // The validator (a Python process) and Chromium below take seconds on an idle machine, minutes on a busy one.
  }, 120_000);

  it('documents every route the Express app serves under /api/v1, and nothing else', () => {
    const app = createRestApp(t.app.container, createMetrics());
    const routes = expressRoutes(app)
      .filter((r) => r.split(' ')[1]!.startsWith('/api/v1/'))
      .map((r) => {
        const [method, path] = r.split(' ') as [string, string];
        return `${method} ${toOpenApiPath(path.slice('/api/v1'.length))}`;
      });
    expect(routes).toContain('GET /merchants/me');
    const documented = documentedOperations(doc.paths);
    expect(routes.filter((r) => !documented.includes(r)), 'routes missing from the OpenAPI document').toEqual([]);
    expect(documented.filter((d) => !routes.includes(d)), 'documented operations with no route').toEqual([]);
  });

  it("documents the error response with the domain's closed list of codes", () => {
    expect(doc.components.schemas.ErrorCode.enum).toEqual(ERROR_CODES);
    expect(doc.components.schemas.ErrorResponse.properties.error.properties.code).toEqual({ $ref: '#/components/schemas/ErrorCode' });
    const settings = doc.paths['/merchants/settings'].post;
    expect(Object.keys(settings.responses)).toEqual(['200', '400', '401', '403', '409', '413', '415', '422', '429', '500', '503']);
    expect(settings.responses['503'].headers).toHaveProperty('Retry-After');
    expect(settings.security).toEqual([{ bearerAuth: [] }, { apiKeyHeader: [] }]);
    expect(settings.responses['429'].headers).toHaveProperty('Retry-After');
    expect(settings.responses['200'].headers).toHaveProperty('RateLimit-Remaining');
    expect(doc.paths['/health'].get.security).toEqual([]);
    expect(doc.paths['/merchants/me'].get.responses).not.toHaveProperty('403'); // suspended merchants may read it
  });

  it('passes Redocly lint with the `recommended` ruleset: no error (the warnings left are printed)', async () => {
    const { createConfig, lintFromString } = await import('@redocly/openapi-core');
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
    const described = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} (${p.location[0]?.pointer ?? ''})`);
    console.log(`Redocly recommended: ${described.length} problem(s)${described.map((d) => `\n  ${d}`).join('')}`);
    expect(described.filter((d) => d.startsWith('error'))).toEqual([]);
    // Each webhook is sent by us, signed: the receiver needs no credentials of ours.
    for (const [event, item] of Object.entries(doc.webhooks as Record<string, { post: { security: unknown; parameters: unknown[] } }>)) {
      expect(item.post.security, event).toEqual([]);
      expect(item.post.parameters, event).toContainEqual({ $ref: '#/components/parameters/WebhookSignature' });
    }
  });

  it('spells the idempotency header one way, and declares Idempotent-Replayed on every answer a key can replay', () => {
    const spellings = new Set<string>();
    let idempotent = 0;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { parameters?: { name: string; in: string }[]; responses: Record<string, { headers?: object }> }>>)) {
      for (const [method, op] of Object.entries(item)) {
        const key = (op.parameters ?? []).find((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
        if (!key) continue;
        idempotent++;
        spellings.add(key.name);
        const replayable = Object.entries(op.responses).filter(([, r]) => r.headers && 'Idempotent-Replayed' in r.headers).map(([status]) => status);
        expect(replayable, `${method} ${path}`).toContain(Object.keys(op.responses).find((s) => s.startsWith('2')));
        expect(replayable, `${method} ${path}`).not.toContain('401');
      }
    }
    expect([...spellings]).toEqual(['Idempotency-Key']);
    expect(idempotent).toBe(23); // 18 with POST /sandbox/runs (issue #31); 20 with the courier's failed-attempt and return, 21 with the tip (issue #30); 23 with the COD hand-over and payout (issue #39)
    // A replayed order creation is its 200 (201: created now).
    const create = doc.paths['/orders'].post.responses;
    expect(create['200'].headers).toHaveProperty('Idempotent-Replayed');
    expect(create['201'].headers).not.toHaveProperty('Idempotent-Replayed');
    expect(doc.components.headers['Idempotent-Replayed'].schema).toEqual({ type: 'string', enum: ['true'] });
  });

  it('uses the very zod objects the handlers parse as request bodies', () => {
    const bodyOf = (method: string, path: string) => {
      const def = registry.definitions.find((d) => d.type === 'route' && d.route.method === method && d.route.path === path);
      const media = def?.type === 'route' ? def.route.request?.body?.content['application/json'] : undefined;
      return media && 'schema' in media ? media.schema : undefined;
    };
    expect(bodyOf('post', '/merchants/settings')).toBe(merchantSettingsInputSchema);
    expect(bodyOf('patch', '/merchants/settings')).toBe(merchantSettingsPatchSchema);
    expect(doc.paths['/merchants/settings'].patch.requestBody.content['application/json'].schema.required).toEqual(['prep_time_mins']);
    expect(bodyOf('post', '/shipping/quote')).toBe(quoteRequestForms);
    expect(bodyOf('post', '/orders')).toBe(createOrderForms);
    expect(bodyOf('post', '/plugin/shipping-quote')).toBe(pluginQuoteSchema);
    expect(bodyOf('post', '/storefront/carrier-service')).toBe(carrierServiceRequestSchema);
    expect(bodyOf('post', '/erp/rate-shipment')).toBe(erpRateSchema);
    // Both request forms, one of them: Form A's destination is an Address, Form B's a string or {lat, lng}.
    const formsOf = (path: string) => doc.paths[path].post.requestBody.content['application/json'].schema.oneOf.map((f: { $ref: string }) => f.$ref.split('/').pop());
    expect(formsOf('/shipping/quote')).toEqual(['QuoteRequestFormA', 'QuoteRequestFormB', 'QuoteRequestMultiStop']);
    expect(formsOf('/orders')).toEqual(['CreateOrderFormAPrepaid', 'CreateOrderFormACashOnDelivery', 'CreateOrderFormBPrepaid', 'CreateOrderFormBCashOnDelivery', 'CreateOrderMultiStop']);
    const schemas = doc.components.schemas;
    const { QuoteRequestFormA: quoteA, QuoteRequestFormB: quoteB, CreateOrderMultiStop: orderStops } = schemas;
    const [orderA, orderACod, orderB, orderBCod] = ['CreateOrderFormAPrepaid', 'CreateOrderFormACashOnDelivery', 'CreateOrderFormBPrepaid', 'CreateOrderFormBCashOnDelivery'].map((n) => schemas[n]);
    expect(quoteA.properties.destination.required).toEqual(['address']);
    expect(quoteB.properties.destination.anyOf.map((s: { type: string }) => s.type)).toEqual(['string', 'object']);
    // A field of another form is a schema no value satisfies, which both generators type `never`
    // (`string & number`): `false` says the same to a validator, but hey-api drops a `false` property.
    const NO_VALUE = [{ type: 'string' }, { type: 'number' }];
    const left = (schema: { properties: Record<string, unknown> }, ...names: string[]) => names.map((n) => (schema.properties[n] as { allOf?: unknown }).allOf);
    expect([...left(quoteA, 'total_weight'), ...left(quoteB, 'total_weight_kg')]).toEqual([NO_VALUE, NO_VALUE]);
    expect([...left(orderA, 'dropoff_address'), ...left(orderACod, 'dropoff_address'), ...left(orderB, 'dropoff'), ...left(orderBCod, 'dropoff')]).toEqual(Array(4).fill(NO_VALUE));
    // Multi-stop: `stops` instead of either drop-off, which the single drop-off forms leave out; its quote's form has `stops` too.
    expect([...left(orderStops, 'dropoff', 'dropoff_address'), ...left(orderA, 'stops'), ...left(orderB, 'stops')]).toEqual(Array(4).fill(NO_VALUE));
    expect([...left(schemas.QuoteRequestMultiStop, 'destination'), ...left(quoteA, 'stops'), ...left(quoteB, 'stops')]).toEqual(Array(3).fill(NO_VALUE));
    expect(orderStops.required).toEqual(expect.arrayContaining(['stops']));
    expect(orderB.required).toEqual(expect.arrayContaining(['dropoff_address', 'payment_mode']));
    // Prepaid variants (and multi-stop, prepaid only) leave cod_amount out; cash on delivery names its payment_mode and may give it, a whole peso.
    expect([...left(orderA, 'cod_amount'), ...left(orderB, 'cod_amount'), ...left(orderStops, 'cod_amount')]).toEqual(Array(3).fill(NO_VALUE));
    expect([orderA, orderB, orderStops].map((s) => s.properties.payment_mode.enum)).toEqual([['prepaid'], ['prepaid'], ['prepaid']]);
    for (const cod of [orderACod, orderBCod]) {
      expect(cod.properties.payment_mode.enum).toEqual(['cash_on_delivery']);
      expect(cod.required).toContain('payment_mode');
      expect(cod.required).not.toContain('cod_amount');
      expect(cod.properties.cod_amount).toMatchObject({ type: 'integer', minimum: 1, maximum: 10_000_000 });
    }
    // min_age: bounded and listed (a list is what a TypeScript type can say).
    const minAges = Array.from({ length: 82 }, (_, i) => 18 + i);
    for (const form of [orderA, orderACod, orderB, orderBCod, orderStops]) expect(form.properties.id_check.properties.min_age).toMatchObject({ type: 'integer', minimum: 18, maximum: 99, enum: minAges });
    // A sandbox run's order is POST /orders' body; its webhook bodies are typed by `event` (flat: none).
    expect(schemas.SandboxRunFormA.properties.order.oneOf).toEqual(doc.paths['/orders'].post.requestBody.content['application/json'].schema.oneOf);
    expect(schemas.WebhookDelivery.properties.payload.oneOf.map((r: { $ref: string }) => r.$ref.split('/').pop())).toEqual(['WebhookPayloadEvent', 'WebhookPayloadFlat', 'WebhookPayloadBatchCreated']);
    expect(schemas.WebhookPayloadFlat.properties.event.allOf).toEqual(NO_VALUE);
  });

  it('the documented forms refuse the planted mistakes, and what they accept the handlers accept', () => {
    const valid = {
      quote: [
        { origin: { address: 'Av. Providencia 1234' }, destination: { address: 'Av. Apoquindo 3000' }, total_weight_kg: 2, package_type: 'box' },
        { destination: 'Av. Apoquindo 3000, Las Condes', total_weight: 2 },
        { destination: { lat: -33.4154, lng: -70.5837 }, origin: 'Av. Providencia 1234' },
      ],
      order: [
        { pickup: { address: 'Av. Providencia 1234' }, dropoff: { address: 'Av. Apoquindo 3000' }, customer_name: 'Ana', customer_phone: '+56912345678', reference_id: 'R-1', items: [{ name: 'x' }] },
        { dropoff_address: 'Av. Apoquindo 3000', payment_mode: 'prepaid', customer_name: 'Ana', customer_phone: '+56912345678', customer_rut: '12.345.678-5', order_notes: 'n' },
        { stops: [{ address: { address: 'Av. Apoquindo 3000' }, contact_name: 'Beto', contact_phone: '+56922222222' }], route: 'optimized', customer_name: 'Ana', customer_phone: '+56912345678' },
        { dropoff_address: 'Av. Apoquindo 3000', payment_mode: 'cash_on_delivery', customer_name: 'Ana', customer_phone: '+56912345678', cod_amount: 15990 },
        { dropoff: { address: 'Av. Apoquindo 3000' }, payment_mode: 'cash_on_delivery', customer_name: 'Ana', customer_phone: '+56912345678', id_check: { required: true, min_age: 21 } },
      ],
    };
    for (const body of valid.quote) {
      expect(quoteRequestForms.safeParse(body).success, JSON.stringify(body)).toBe(true);
      expect(quoteRequestBody.safeParse(body).success, JSON.stringify(body)).toBe(true);
    }
    for (const body of valid.order) {
      expect(createOrderForms.safeParse(body).success, JSON.stringify(body)).toBe(true);
      expect(createOrderBody.safeParse(body).success, JSON.stringify(body)).toBe(true);
    }
    const [orderA, orderB] = valid.order as unknown as [Record<string, unknown>, Record<string, unknown>];
    const { dropoff: _d, ...noDestination } = orderA;
    const { payment_mode: _p, ...formBWithoutPaymentMode } = orderB;
    for (const body of [{ total_weight: 2 }, { destination: { address: 'Av. Apoquindo 3000' }, total_weight_kg: 1, total_weight: 50 }, { destination: 'Av. Apoquindo 3000', total_weight_kg: 1, total_weight: 50 }]) {
      expect(quoteRequestForms.safeParse(body).success, JSON.stringify(body)).toBe(false);
      expect(quoteRequestBody.safeParse(body).success, JSON.stringify(body)).toBe(false);
    }
    const stops = (valid.order[2] as { stops: unknown }).stops;
    for (const body of [noDestination, formBWithoutPaymentMode, { ...orderA, dropoff_address: 'Av. Apoquindo 3000', payment_mode: 'prepaid' }, { ...orderA, stops }, { ...orderA, route: 'given' }, { ...orderA, id_check: { required: true, min_age: 17 } }]) {
      expect(createOrderForms.safeParse(body).success, JSON.stringify(body)).toBe(false);
      expect(createOrderBody.safeParse(body).success, JSON.stringify(body)).toBe(false);
    }
    // The payment pairings: the forms refuse them, the handler's flat schema leaves them to the domain (400 too: generated-client.test.ts).
    for (const body of [{ ...orderB, cod_amount: 15990 }, { ...orderA, cod_amount: 15990 }, { ...(valid.order[2] as object), payment_mode: 'cash_on_delivery' }]) {
      expect(createOrderForms.safeParse(body).success, JSON.stringify(body)).toBe(false);
    }
  });

  it('documents the storefront signature as an alternative to the API key, with its query', () => {
    const op = doc.paths['/storefront/carrier-service'].post;
    expect(op.security).toEqual([{ bearerAuth: [] }, { apiKeyHeader: [] }, { storefrontHmac: [], storefrontShopDomain: [] }]);
    expect(doc.components.securitySchemes.storefrontHmac).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Shopify-Hmac-Sha256' });
    expect(doc.components.securitySchemes.storefrontShopDomain).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Shopify-Shop-Domain' });
    const query = Object.fromEntries(op.parameters.filter((p: { in: string }) => p.in === 'query').map((p: { name: string; schema: unknown }) => [p.name, p.schema]));
    expect(query).toEqual({ prep_time_mins: { type: 'integer', minimum: 0, maximum: 240 }, mode: { type: 'string', enum: ['live', 'test'] } });
    expect(op.responses['401'].description).toContain('INVALID_SIGNATURE');
    expect(doc.paths['/shipping/quote'].post.responses['401'].description).not.toContain('INVALID_SIGNATURE');
    // Integration endpoints answer 403 while the integration awaits approval.
    for (const path of ['/plugin/shipping-quote', '/storefront/carrier-service', '/erp/rate-shipment']) {
      expect(doc.paths[path].post.responses['403'].description, path).toContain('INTEGRATION_IN_REVIEW');
    }
    expect(doc.paths['/erp/rate-shipment'].post.responses['400'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErpRateFailure' });
  });

  it('shows request examples that the domain schemas accept', () => {
    for (const def of registry.definitions) {
      const media = def.type === 'route' ? def.route.request?.body?.content['application/json'] : undefined;
      if (!media || !('schema' in media) || media.example === undefined) continue;
      const parsed = (media.schema as z.ZodType).safeParse(media.example);
      expect(parsed.success ? [] : parsed.error.issues, JSON.stringify(media.example)).toEqual([]);
    }
  });

  it('describes what the endpoints really answer, field for field', async () => {
    const health = await api(`${t.url}/api/v1/health`);
    expectWireShape(healthSchema, health.body);

    const me = await api(`${t.url}/api/v1/merchants/me`, { key: merchant.testKey });
    expect(me.status).toBe(200);
    expectWireShape(merchantMeResponseSchema, me.body);

    for (const [method, body] of [
      ['POST', { storefront_domain: 'shop.example.com' }],
      ['PATCH', { prep_time_mins: 15 }],
    ] as const) {
      const res = await api(`${t.url}/api/v1/merchants/settings`, { method, key: merchant.testKey, body });
      expect(res.status).toBe(200);
      expectWireShape(merchantSettingsUpdatedSchema, res.body);
    }

    const invalid = await api(`${t.url}/api/v1/merchants/settings`, { method: 'PATCH', key: merchant.testKey, body: { address: 'x' } });
    expect(invalid.status).toBe(400);
    expectWireShape(errorResponseSchema, invalid.body);
    const unauthorized = await api(`${t.url}/api/v1/merchants/me`);
    expect(unauthorized.status).toBe(401);
    expectWireShape(errorResponseSchema, unauthorized.body);
  });

  it('serves the reference page with its own assets under a CSP that allows only them', async () => {
    const page = await api(`${t.url}/api/v1/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = page.body as string;
    expect(html).not.toMatch(/<script>(?!<\/script>)|<style|https?:\/\//);
    const assets = [...html.matchAll(/(?:src|href)="(\/api\/v1\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toHaveLength(3);
    for (const asset of assets) {
      const res = await fetch(`${t.url}${asset}`);
      expect(res.status, asset).toBe(200);
      expect(res.headers.get('content-type'), asset).toMatch(asset.endsWith('.css') ? /^text\/css/ : /javascript/);
      await res.arrayBuffer();
    }
    expect((await api(`${t.url}/api/v1/docs/assets/index.html`)).status).toBe(404);
    expect((await api(`${t.url}/api/v1/docs/assets/../package.json`)).status).toBe(404);
  });

  it('renders every documented operation in a headless browser, offline and without CSP violations', async (ctx) => {
    if (!existsSync(CHROMIUM)) {
      console.log(`skip: ${CHROMIUM} is missing (apt-get install -y chromium)`);
      return ctx.skip();
    }
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-background-networking'] });
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      const foreign: string[] = [];
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('request', (r) => !r.url().startsWith(t.url) && !r.url().startsWith('data:') && foreign.push(r.url()));
      await page.goto(`${t.url}/api/v1/docs`);
      await page.locator('.opblock').first().waitFor({ timeout: 60_000 });
      const rendered = await page.$$eval('.opblock', (blocks) =>
        blocks.map((b) => {
          const method = b.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '';
          const path = b.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '';
          return `${method.toUpperCase()} ${path}`;
        }),
      );
      // OpenAPI 3.1 `webhooks` (what merchants' servers receive) render as operations too, keyed by event name.
      const webhooks = documentedOperations(doc.webhooks);
      expect(webhooks.map((w) => w.split(' ')[1]).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
      expect(rendered.sort()).toEqual([...documentedOperations(doc.paths), ...webhooks].sort());
      expect(await page.locator('.info .title').textContent()).toContain('Express Delivery API');
      expect(problems).toEqual([]);
      expect(foreign).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);
});
