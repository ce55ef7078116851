/**
 * The webhook API: endpoint CRUD and its validation, the delivery log's query and pages, tenant and
 * mode isolation (another merchant's or mode's ids are 404), and the GraphQL equivalents.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  webhookDeliveryDetailResponseSchema,
  webhookDeliveryListResponseSchema,
  webhookDeliveryResponseSchema,
  webhookEndpointDeletedResponseSchema,
  webhookEndpointListResponseSchema,
  webhookEndpointResponseSchema,
  webhookRequeuedResponseSchema,
} from '../../rest/openapi/responses-webhooks.js';
import { MAX_ENDPOINTS } from '../../src/domain/webhooks/endpoints.js';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { expectError, expectOk, expectWireShape, formA, merchantApi } from '../orders/support.js';
import { allDeliveries, startReceiver, startWebhooksApp, waitFor, webhooksApi, type Receiver } from './support.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  // No retries: a failed first attempt is final, so failed deliveries are quick to make.
  t = await startWebhooksApp({ WEBHOOK_MAX_RETRIES: '0' });
  receiver = await startReceiver();
  receiver.respond((r) => (r.path.startsWith('/fail') ? 500 : 200));
});
afterAll(async () => {
  await t?.stop();
  await receiver?.close();
});

describe('endpoint CRUD', () => {
  let m: MerchantCredentials;
  beforeAll(async () => {
    m = await t.createMerchant({ name: 'CRUD Merchant' });
  });

  it('creates with defaults, reads, lists, updates, disables, re-enables and deletes', async () => {
    const hooks = webhooksApi(t.url, m.testKey);
    const created = expectOk(await hooks.create({ url: `${receiver.url}/crud`, description: 'orders feed' }), 201);
    expectWireShape(webhookEndpointResponseSchema, created.body);
    const e = created.body.endpoint as Json;
    expect(e).toMatchObject({
      url: `${receiver.url}/crud`, description: 'orders feed', events: ['order.status_changed', 'batch.created'], payload_shape: 'event',
      enabled: true, disabled_reason: null, failing_since: null, is_test: true,
    });
    expect(e.id).toMatch(/^we_/);

    const got = expectOk(await hooks.get(e.id));
    expectWireShape(webhookEndpointResponseSchema, got.body);
    expect(got.body.endpoint).toEqual(e);
    const list = expectOk(await hooks.list());
    expectWireShape(webhookEndpointListResponseSchema, list.body);
    expect(list.body.endpoints).toEqual([e]);

    const updated = expectOk(await hooks.update(e.id, { events: ['order.status_changed', 'order.courier_location'], payload_shape: 'flat', description: null }));
    expectWireShape(webhookEndpointResponseSchema, updated.body);
    expect(updated.body.endpoint).toMatchObject({ events: ['order.status_changed', 'order.courier_location'], payload_shape: 'flat', description: null, url: e.url });
    expect(expectOk(await hooks.update(e.id, { enabled: false })).body.endpoint).toMatchObject({ enabled: false, disabled_reason: 'disabled by the merchant' });
    expect(expectOk(await hooks.update(e.id, { enabled: true })).body.endpoint).toMatchObject({ enabled: true, disabled_reason: null });

    const deleted = expectOk(await hooks.remove(e.id));
    expectWireShape(webhookEndpointDeletedResponseSchema, deleted.body);
    expectError(await hooks.get(e.id), 404, 'NOT_FOUND');
    expectError(await hooks.remove(e.id), 404, 'NOT_FOUND');
    expectError(await hooks.update(e.id, { enabled: true }), 404, 'NOT_FOUND');
    expect(expectOk(await hooks.list()).body.endpoints).toEqual([]);
  });

  it('defaults follow the merchant settings (payload shape, courier locations)', async () => {
    const s = await t.createMerchant({ name: 'Settings Defaults' });
    expectOk(await api(`${t.url}/api/v1/merchants/settings`, { key: s.testKey, body: { webhook_payload_shape: 'flat', webhook_courier_location: true } }));
    const e = expectOk(await webhooksApi(t.url, s.testKey).create({ url: `${receiver.url}/defaults` }), 201).body.endpoint;
    expect(e).toMatchObject({ payload_shape: 'flat', events: ['order.status_changed', 'batch.created', 'order.courier_location'] });
  });

  it.each([
    ['a URL that is not one', { url: 'not a url' }, 'url'],
    ['a non-http scheme', { url: 'ftp://hooks.example.com/x' }, 'url'],
    ['a javascript: URL', { url: 'javascript:alert(1)' }, 'url'],
    ['no URL', { events: ['order.status_changed'] }, 'url'],
    ['a URL over 2000 characters', { url: `https://hooks.example.com/${'a'.repeat(2000)}` }, 'url'],
    ['an unknown event', { url: 'https://hooks.example.com/x', events: ['order.created'] }, 'events.0'],
    ['no events', { url: 'https://hooks.example.com/x', events: [] }, 'events'],
    ['an unknown payload shape', { url: 'https://hooks.example.com/x', payload_shape: 'xml' }, 'payload_shape'],
    ['a non-boolean enabled', { url: 'https://hooks.example.com/x', enabled: 'yes' }, 'enabled'],
    ['a description over 200 characters', { url: 'https://hooks.example.com/x', description: 'x'.repeat(201) }, 'description'],
  ])('create refuses %s (400 on that field)', async (_name, body, field) => {
    const res = expectError(await webhooksApi(t.url, m.testKey).create(body), 400, 'VALIDATION_ERROR');
    expect(res.body.error.fields.map((f: { field: string }) => f.field)).toContain(field);
  });

  it('create and update refuse unknown fields and bodies that are not JSON objects; update needs a field', async () => {
    const hooks = webhooksApi(t.url, m.testKey);
    const unknown = expectError(await hooks.create({ url: 'https://hooks.example.com/x', secret: 'mine' }), 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(unknown.body.error)).toContain('secret');
    expectError(await hooks.create(['https://hooks.example.com/x']), 400, 'VALIDATION_ERROR');
    expectError(await api(`${t.url}/api/v1/webhooks`, { key: m.testKey, rawBody: '{"url":', headers: { 'content-type': 'application/json' } }), 400, 'MALFORMED_JSON');
    const e = expectOk(await hooks.create({ url: 'https://hooks.example.com/x' }), 201).body.endpoint;
    expectError(await hooks.update(e.id, {}), 400, 'VALIDATION_ERROR');
    expectError(await hooks.update(e.id, { merchant_id: 'm_other' }), 400, 'VALIDATION_ERROR');
    expectError(await hooks.update(e.id, { url: 'nope' }), 400, 'VALIDATION_ERROR');
    expect(expectOk(await hooks.get(e.id)).body.endpoint).toEqual(e);
    expectOk(await hooks.remove(e.id));
  });

  it(`allows at most ${MAX_ENDPOINTS} endpoints per mode (409 CONFLICT), counted per mode`, async () => {
    const s = await t.createMerchant({ name: 'Many Endpoints' });
    const hooks = webhooksApi(t.url, s.testKey);
    for (let i = 0; i < MAX_ENDPOINTS; i++) expectOk(await hooks.create({ url: `https://hooks.example.com/${i}` }), 201);
    expectError(await hooks.create({ url: 'https://hooks.example.com/one-more' }), 409, 'CONFLICT');
    expectOk(await webhooksApi(t.url, s.liveKey).create({ url: 'https://hooks.example.com/live' }), 201);
  });
});

describe('the delivery log', () => {
  it('pages newest first, filters by endpoint and status, and validates its query', async () => {
    const m = await t.createMerchant({ name: 'Log Merchant' });
    const hooks = webhooksApi(t.url, m.testKey);
    const good = expectOk(await hooks.create({ url: `${receiver.url}/log-ok` }), 201).body.endpoint;
    const bad = expectOk(await hooks.create({ url: `${receiver.url}/fail-log` }), 201).body.endpoint;
    for (let i = 0; i < 3; i++) expectOk(await merchantApi(t, m.testKey).create(formA()), 201);
    await waitFor(async () => (await allDeliveries(hooks)).filter((d) => d.status !== 'pending').length === 6);

    const first = expectOk(await hooks.deliveries({ limit: '4' }));
    expectWireShape(webhookDeliveryListResponseSchema, first.body);
    expect(first.body.deliveries).toHaveLength(4);
    const second = expectOk(await hooks.deliveries({ limit: '4', after: first.body.next_cursor }));
    expect(second.body.deliveries).toHaveLength(2);
    expect(second.body.next_cursor).toBeNull();
    const ids = [...first.body.deliveries, ...second.body.deliveries].map((d: Json) => d.id);
    expect(ids).toEqual([...ids].sort().reverse()); // newest first
    expect(new Set(ids).size).toBe(6);

    const byEndpoint = await allDeliveries(hooks, { endpoint_id: bad.id });
    expect(byEndpoint).toHaveLength(3);
    expect(byEndpoint.every((d) => d.endpoint_id === bad.id && d.status === 'failed' && d.last_status_code === 500)).toBe(true);
    expect((await allDeliveries(hooks, { status: 'delivered' })).every((d) => d.endpoint_id === good.id)).toBe(true);
    expect(await allDeliveries(hooks, { created_from: new Date(Date.now() + 60_000).toISOString() })).toEqual([]);

    const detail = expectOk(await hooks.delivery(byEndpoint[0]!.id));
    expectWireShape(webhookDeliveryDetailResponseSchema, detail.body);
    expect(detail.body.attempts).toEqual([{ attempt: 1, at: expect.any(String), status_code: 500, latency_ms: expect.any(Number), error: 'HTTP 500' }]);
    const redelivered = expectOk(await hooks.redeliver(byEndpoint[0]!.id));
    expectWireShape(webhookDeliveryResponseSchema, redelivered.body);
    const requeued = expectOk(await hooks.redeliverFailed({ created_from: new Date(Date.now() - 60_000).toISOString(), created_to: new Date(Date.now() + 60_000).toISOString() }));
    expectWireShape(webhookRequeuedResponseSchema, requeued.body);

    const badQueries: Array<Record<string, string>> = [{ limit: '0' }, { limit: '101' }, { limit: 'ten' }, { status: 'lost' }, { created_from: 'yesterday' }, { endpoint: good.id }];
    for (const query of badQueries) {
      expectError(await hooks.deliveries(query), 400, 'VALIDATION_ERROR');
    }
    expectError(await hooks.delivery('msg_01JHX3Z6Q8R2V4N7W9Y1A3C5E7'), 404, 'NOT_FOUND');
    expectError(await hooks.redeliver('msg_01JHX3Z6Q8R2V4N7W9Y1A3C5E7'), 404, 'NOT_FOUND');
  });
});

describe('tenant and mode isolation', () => {
  let a: MerchantCredentials;
  let b: MerchantCredentials;
  let endpointId: string;
  let deliveryId: string;
  beforeAll(async () => {
    a = await t.createMerchant({ name: 'Isolation A' });
    b = await t.createMerchant({ name: 'Isolation B' });
    const hooks = webhooksApi(t.url, a.testKey);
    endpointId = expectOk(await hooks.create({ url: `${receiver.url}/fail-isolation` }), 201).body.endpoint.id;
    expectOk(await merchantApi(t, a.testKey).create(formA()), 201);
    const [d] = await waitFor(async () => {
      const all = await allDeliveries(hooks);
      return all.length === 1 && all[0]!.status === 'failed' && all;
    });
    deliveryId = d!.id;
  });

  const range = () => ({ created_from: new Date(Date.now() - 3_600_000).toISOString(), created_to: new Date(Date.now() + 60_000).toISOString() });

  it.each([
    ["another merchant's test key", () => b.testKey],
    ["another merchant's live key", () => b.liveKey],
    ["the same merchant's live key", () => a.liveKey],
  ])('%s sees 404 for the endpoint and the delivery, and none of them in lists', async (_name, key) => {
    const hooks = webhooksApi(t.url, key());
    expectError(await hooks.get(endpointId), 404, 'NOT_FOUND');
    expectError(await hooks.update(endpointId, { enabled: false }), 404, 'NOT_FOUND');
    expectError(await hooks.remove(endpointId), 404, 'NOT_FOUND');
    expectError(await hooks.delivery(deliveryId), 404, 'NOT_FOUND');
    expectError(await hooks.redeliver(deliveryId), 404, 'NOT_FOUND');
    expect(expectOk(await hooks.list()).body.endpoints).toEqual([]);
    expect(await allDeliveries(hooks)).toEqual([]);
    expect(await allDeliveries(hooks, { endpoint_id: endpointId })).toEqual([]);
    expect(expectOk(await hooks.redeliverFailed(range())).body.requeued).toBe(0);
  });

  it('nothing of A changed, and A itself still sees both', async () => {
    const hooks = webhooksApi(t.url, a.testKey);
    expect(expectOk(await hooks.get(endpointId)).body.endpoint).toMatchObject({ enabled: true, disabled_reason: null });
    expect(expectOk(await hooks.delivery(deliveryId)).body.delivery).toMatchObject({ status: 'failed', attempts: 1 });
  });
});

describe('GraphQL', () => {
  const ENDPOINT_FIELDS = 'id url description events payloadShape enabled disabledReason failingSince createdAt';
  const ERROR_FIELDS = '... on AppError { code message fields { field } }';
  const CREATE = `mutation ($input: WebhookEndpointInput!) { createWebhookEndpoint(input: $input) {
    __typename ... on MutationCreateWebhookEndpointSuccess { data { ${ENDPOINT_FIELDS} } } ${ERROR_FIELDS} } }`;
  const UPDATE = `mutation ($id: ID!, $input: WebhookEndpointInput!) { updateWebhookEndpoint(id: $id, input: $input) {
    __typename ... on MutationUpdateWebhookEndpointSuccess { data { ${ENDPOINT_FIELDS} } } ${ERROR_FIELDS} } }`;
  const DELETE = `mutation ($id: ID!) { deleteWebhookEndpoint(id: $id) { __typename ... on MutationDeleteWebhookEndpointSuccess { data } ${ERROR_FIELDS} } }`;
  const ENDPOINTS = `{ webhookEndpoints { ${ENDPOINT_FIELDS} } }`;
  const DELIVERIES = `query ($first: Int, $status: WebhookDeliveryStatus) { webhookDeliveries(first: $first, status: $status) {
    __typename ... on QueryWebhookDeliveriesSuccess { data { id event status attempts orderId sequence } } ${ERROR_FIELDS} } }`;
  const DELIVERY = `query ($id: ID!) { webhookDelivery(id: $id) { __typename
    ... on QueryWebhookDeliverySuccess { data { id endpointId event status attempts lastStatusCode lastError nextAttemptAt payload
      attemptLog { attempt statusCode latencyMs error } } } ${ERROR_FIELDS} } }`;
  const REDELIVER = `mutation ($id: ID!) { redeliverWebhook(id: $id) { __typename ... on MutationRedeliverWebhookSuccess { data { id status } } ${ERROR_FIELDS} } }`;
  const REDELIVER_FAILED = `mutation ($from: DateTime!, $to: DateTime!) { redeliverFailedWebhooks(createdFrom: $from, createdTo: $to) {
    __typename ... on MutationRedeliverFailedWebhooksSuccess { data } ${ERROR_FIELDS} } }`;

  it('manages endpoints with typed results and typed errors, the same as REST', async () => {
    const m = await t.createMerchant({ name: 'GraphQL Hooks' });
    const other = await t.createMerchant({ name: 'GraphQL Other' });
    const created = (await gql(t.url, CREATE, { key: m.testKey, variables: { input: { url: `${receiver.url}/gql`, events: ['ORDER_STATUS_CHANGED'], payloadShape: 'flat' } } })).body
      .data.createWebhookEndpoint;
    expect(created).toMatchObject({
      __typename: 'MutationCreateWebhookEndpointSuccess',
      data: { url: `${receiver.url}/gql`, events: ['ORDER_STATUS_CHANGED'], payloadShape: 'flat', enabled: true, disabledReason: null },
    });
    const id = created.data.id as string;
    const rest = expectOk(await webhooksApi(t.url, m.testKey).get(id)).body.endpoint;
    expect(rest).toMatchObject({ id, events: ['order.status_changed'], payload_shape: 'flat' });
    expect((await gql(t.url, ENDPOINTS, { key: m.testKey })).body.data.webhookEndpoints.map((e: Json) => e.id)).toEqual([id]);
    expect((await gql(t.url, ENDPOINTS, { key: m.liveKey })).body.data.webhookEndpoints).toEqual([]);

    const invalid = (await gql(t.url, CREATE, { key: m.testKey, variables: { input: { url: 'not a url' } } })).body;
    expect(invalid.errors).toBeUndefined();
    expect(invalid.data.createWebhookEndpoint).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR', fields: [{ field: 'url' }] });
    const privateLive = (await gql(t.url, CREATE, { key: m.liveKey, variables: { input: { url: 'https://10.0.0.1/x' } } })).body.data.createWebhookEndpoint;
    expect(privateLive).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR', fields: [{ field: 'url' }] });
    // An unknown event is not even a valid enum value: a GraphQL validation error.
    const unknownEvent = (await gql(t.url, CREATE, { key: m.testKey, variables: { input: { url: 'https://hooks.example.com/x', events: ['ORDER_CREATED'] } } })).body;
    expect(unknownEvent.errors?.length).toBeGreaterThan(0);

    const disabled = (await gql(t.url, UPDATE, { key: m.testKey, variables: { id, input: { enabled: false } } })).body.data.updateWebhookEndpoint;
    expect(disabled).toMatchObject({ __typename: 'MutationUpdateWebhookEndpointSuccess', data: { enabled: false, disabledReason: 'disabled by the merchant' } });
    for (const [query, field, variables] of [
      [UPDATE, 'updateWebhookEndpoint', { id, input: { enabled: true } }],
      [DELETE, 'deleteWebhookEndpoint', { id }],
    ] as const) {
      expect((await gql(t.url, query, { key: other.testKey, variables })).body.data[field]).toMatchObject({ __typename: 'AppError', code: 'NOT_FOUND' });
      expect((await gql(t.url, query, { key: m.liveKey, variables })).body.data[field]).toMatchObject({ __typename: 'AppError', code: 'NOT_FOUND' });
    }
    expect((await gql(t.url, DELETE, { key: m.testKey, variables: { id } })).body.data.deleteWebhookEndpoint).toEqual({
      __typename: 'MutationDeleteWebhookEndpointSuccess',
      data: true,
    });
    expect((await gql(t.url, DELETE, { key: m.testKey, variables: { id } })).body.data.deleteWebhookEndpoint).toMatchObject({ __typename: 'AppError', code: 'NOT_FOUND' });
  });

  it('reads the delivery log and redelivers, with NOT_FOUND for other tenants and modes', async () => {
    const m = await t.createMerchant({ name: 'GraphQL Log' });
    const other = await t.createMerchant({ name: 'GraphQL Log Other' });
    expectOk(await webhooksApi(t.url, m.testKey).create({ url: `${receiver.url}/fail-gql` }), 201);
    const booking = expectOk(await merchantApi(t, m.testKey).create(formA()), 201).body.booking_id;
    const [failed] = await waitFor(async () => {
      const all = await allDeliveries(webhooksApi(t.url, m.testKey));
      return all.length === 1 && all[0]!.status === 'failed' && all;
    });

    const list = (await gql(t.url, DELIVERIES, { key: m.testKey, variables: { first: 10, status: 'failed' } })).body.data.webhookDeliveries;
    expect(list).toEqual({
      __typename: 'QueryWebhookDeliveriesSuccess',
      data: [{ id: failed!.id, event: 'ORDER_STATUS_CHANGED', status: 'failed', attempts: 1, orderId: booking, sequence: 1 }],
    });
    expect((await gql(t.url, DELIVERIES, { key: m.testKey, variables: { first: 0 } })).body.data.webhookDeliveries).toMatchObject({
      __typename: 'AppError',
      code: 'VALIDATION_ERROR',
    });
    const one = (await gql(t.url, DELIVERY, { key: m.testKey, variables: { id: failed!.id } })).body.data.webhookDelivery;
    expect(one).toMatchObject({
      __typename: 'QueryWebhookDeliverySuccess',
      data: { id: failed!.id, status: 'failed', lastStatusCode: 500, lastError: 'HTTP 500', nextAttemptAt: null, attemptLog: [{ attempt: 1, statusCode: 500, error: 'HTTP 500' }] },
    });
    expect(JSON.parse(one.data.payload)).toEqual(failed!.payload);
    for (const key of [other.testKey, m.liveKey]) {
      expect((await gql(t.url, DELIVERY, { key, variables: { id: failed!.id } })).body.data.webhookDelivery).toMatchObject({ __typename: 'AppError', code: 'NOT_FOUND' });
      expect((await gql(t.url, REDELIVER, { key, variables: { id: failed!.id } })).body.data.redeliverWebhook).toMatchObject({ __typename: 'AppError', code: 'NOT_FOUND' });
    }

    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    expect((await gql(t.url, REDELIVER_FAILED, { key: other.testKey, variables: { from, to } })).body.data.redeliverFailedWebhooks).toEqual({
      __typename: 'MutationRedeliverFailedWebhooksSuccess',
      data: 0,
    });
    expect((await gql(t.url, REDELIVER_FAILED, { key: m.testKey, variables: { from: to, to: from } })).body.data.redeliverFailedWebhooks).toMatchObject({
      __typename: 'AppError',
      code: 'VALIDATION_ERROR',
    });
    expect((await gql(t.url, REDELIVER_FAILED, { key: m.testKey, variables: { from, to } })).body.data.redeliverFailedWebhooks).toEqual({
      __typename: 'MutationRedeliverFailedWebhooksSuccess',
      data: 1,
    });
    await waitFor(async () => (await allDeliveries(webhooksApi(t.url, m.testKey), { status: 'failed' })).length === 1 && receiver.of(failed!.id).length === 2);
    expect((await gql(t.url, REDELIVER, { key: m.testKey, variables: { id: failed!.id } })).body.data.redeliverWebhook).toEqual({
      __typename: 'MutationRedeliverWebhookSuccess',
      data: { id: failed!.id, status: 'pending' },
    });
  });
});
