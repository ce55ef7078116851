/**
 * Bulk redelivery is bounded (issue #12, item 10): one call requeues at most 1,000 failed
 * deliveries (newest first) and says whether more remain; a merchant makes at most 10 calls per
 * hour per mode (REST 429 with Retry-After, the typed RATE_LIMITED result over GraphQL — one
 * budget for both), and with Redis that budget is shared by every node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorResponseSchema } from '../../rest/openapi/registry.js';
import { webhookRequeuedResponseSchema } from '../../rest/openapi/responses-webhooks.js';
import { REDELIVER_FAILED_LIMITS } from '../../src/domain/webhooks/delivery-log.js';
import { MAX_ENDPOINTS } from '../../src/domain/webhooks/endpoints.js';
import { formA } from '../orders/support.js';
import type { WebhookDelivery } from '../../src/domain/types.js';
import { api, gql, makeDataDir, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { expectWireShape } from '../helpers/openapi.js';
import { hasRedisServerBinary, startRedisServer, type RedisServer } from '../helpers/redis.js';

const REDELIVER_FAILED = `mutation ($from: DateTime!, $to: DateTime!) { redeliverFailedWebhooks(createdFrom: $from, createdTo: $to) {
  __typename ... on MutationRedeliverFailedWebhooksSuccess { data more limit } ... on AppError { code message } } }`;

const range = () => ({ created_from: new Date(Date.now() - 3_600_000).toISOString(), created_to: new Date(Date.now() + 60_000).toISOString() });
const redeliverFailed = (t: TestApp, key: string, body: unknown = range()) => api(`${t.url}/api/v1/webhooks/deliveries/redeliver-failed`, { key, body });

/** Failed deliveries written straight through the store port (sending 1,001 real webhooks would take minutes). */
async function seedFailedDeliveries(t: TestApp, m: MerchantCredentials, count: number): Promise<string[]> {
  const { store, ids } = t.app.container;
  const start = Date.now() - 30 * 60_000;
  const deliveries: WebhookDelivery[] = Array.from({ length: count }, (_, i) => ({
    id: ids.next('msg'), endpointId: 'we_bounds', merchantId: m.merchantId, mode: 'test', eventType: 'order.status_changed',
    orderId: null, sequence: null, body: '{}', status: 'failed', attempts: 9, nextAttemptAt: new Date(start + i).toISOString(),
    leaseOwner: null, leaseUntil: null, lastStatusCode: 500, lastError: 'HTTP 500', lastLatencyMs: 3,
    createdAt: new Date(start + i).toISOString(), deliveredAt: null,
  }));
  await store.webhooks.insertDeliveries(deliveries);
  return deliveries.map((d) => d.id);
}

async function statusCounts(t: TestApp, m: MerchantCredentials) {
  const all = await t.app.container.store.webhooks.listDeliveries({ merchantId: m.merchantId, mode: 'test', limit: 5000 });
  return { failed: all.filter((d) => d.status === 'failed').map((d) => d.id), pending: all.filter((d) => d.status === 'pending').length };
}

describe('bulk redelivery bounds (embedded)', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  beforeAll(async () => {
    // No worker: requeued deliveries stay pending where the test can count them.
    t = await startTestApp({ env: { WEBHOOK_WORKER: 'false' } });
    m = await t.createMerchant({ name: 'Bulk Redeliverer' });
  });
  afterAll(() => t?.stop());

  it('requeues at most 1,000 per call, newest first, and says when more remain', async () => {
    expect(REDELIVER_FAILED_LIMITS).toEqual({ batch: 1000, perHour: 10 });
    const seeded = await seedFailedDeliveries(t, m, 1001);

    const first = await redeliverFailed(t, m.testKey);
    expect(first.status).toBe(200);
    expectWireShape(webhookRequeuedResponseSchema, first.body);
    expect(first.body).toEqual({ success: true, requeued: 1000, more: true, limit: 1000 });
    // The oldest one is left for the next call.
    expect(await statusCounts(t, m)).toEqual({ failed: [seeded[0]], pending: 1000 });

    const second = await redeliverFailed(t, m.testKey);
    expectWireShape(webhookRequeuedResponseSchema, second.body);
    expect(second.body).toEqual({ success: true, requeued: 1, more: false, limit: 1000 });
    expect(await statusCounts(t, m)).toEqual({ failed: [], pending: 1001 });
  });

  it('allows 10 calls per hour per merchant and mode, then 429 RATE_LIMITED with Retry-After; GraphQL shares the budget', async () => {
    // Two calls were made above; refused bodies do not count.
    for (let i = 0; i < 5; i++) expect((await redeliverFailed(t, m.testKey, { created_from: 'yesterday' })).status).toBe(400);
    for (let call = 3; call <= 9; call++) expect((await redeliverFailed(t, m.testKey)).status, `call ${call}`).toBe(200);
    const { from, to } = { from: range().created_from, to: range().created_to };
    const tenth = await gql(t.url, REDELIVER_FAILED, { key: m.testKey, variables: { from, to } });
    expect(tenth.body.data.redeliverFailedWebhooks).toEqual({ __typename: 'MutationRedeliverFailedWebhooksSuccess', data: 0, more: false, limit: 1000 });

    const refused = await redeliverFailed(t, m.testKey);
    expect(refused.status).toBe(429);
    expectWireShape(errorResponseSchema, refused.body);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(3000);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(refused.body.error.details).toEqual({ retry_after_seconds: retryAfter });

    const overGraphQL = await gql(t.url, REDELIVER_FAILED, { key: m.testKey, variables: { from, to } });
    expect(overGraphQL.status).toBe(200);
    expect(overGraphQL.body.data.redeliverFailedWebhooks).toMatchObject({ __typename: 'AppError', code: 'RATE_LIMITED' });

    // Another mode of the same merchant, and another merchant, have budgets of their own.
    expect((await redeliverFailed(t, m.liveKey)).status).toBe(200);
    const other = await t.createMerchant({ name: 'Other Redeliverer' });
    expect((await redeliverFailed(t, other.testKey)).status).toBe(200);
  });
});

describe('what one sandbox call can multiply', () => {
  let t: TestApp;
  beforeAll(async () => {
    // The simulated fleet exists, but its timer never ticks during the test: only the advance call moves the order.
    t = await startTestApp({ env: { WEBHOOK_WORKER: 'false', WEBHOOK_SANDBOX_ALLOW_PRIVATE: 'true', SANDBOX_SIMULATOR: 'true', SANDBOX_TICK_MS: '60000' } });
  });
  afterAll(() => t?.stop());

  it(`one advance is one transition: one delivery per endpoint, and a merchant has at most ${MAX_ENDPOINTS} endpoints per mode`, async () => {
    const m = await t.createMerchant({ name: 'Fan-out Merchant' });
    for (let i = 0; i < MAX_ENDPOINTS; i++) {
      expect((await api(`${t.url}/api/v1/webhooks`, { key: m.testKey, body: { url: `http://127.0.0.1:9/hook-${i}` } })).status).toBe(201);
    }
    expect((await api(`${t.url}/api/v1/webhooks`, { key: m.testKey, body: { url: 'http://127.0.0.1:9/one-more' } })).status).toBe(409);
    const count = async () => (await t.app.container.store.webhooks.listDeliveries({ merchantId: m.merchantId, mode: 'test', limit: 1000 })).length;

    const order = await api(`${t.url}/api/v1/orders`, { key: m.testKey, body: formA() });
    expect(order.status).toBe(201);
    let before = await count();
    for (let step = 0; step < 3; step++) {
      const advanced = await api(`${t.url}/api/v1/sandbox/orders/${order.body.booking_id}/advance`, { key: m.testKey, method: 'POST' });
      expect(advanced.status, JSON.stringify(advanced.body)).toBe(200);
      const after = await count();
      expect(after - before).toBe(MAX_ENDPOINTS);
      before = after;
    }
  });
});

describe.runIf(hasRedisServerBinary())('bulk redelivery budget across nodes (Redis)', () => {
  let redis: RedisServer;
  const nodes: TestApp[] = [];
  let m: MerchantCredentials;
  beforeAll(async () => {
    redis = await startRedisServer();
    const dataDir = makeDataDir();
    // Two nodes over one SQLite file and one Redis: the hourly count lives in Redis.
    for (let i = 0; i < 2; i++) nodes.push(await startTestApp({ dataDir, env: { REDIS_URL: redis.url, WEBHOOK_WORKER: 'false' } }));
    m = await nodes[0]!.createMerchant({ name: 'Two Node Merchant' });
  }, 30_000);
  afterAll(async () => {
    for (const node of nodes) await node.stop();
    await redis?.stop();
  });

  it('10 calls spread over two nodes use up one budget', async () => {
    for (let call = 0; call < 10; call++) expect((await redeliverFailed(nodes[call % 2]!, m.testKey)).status, `call ${call + 1}`).toBe(200);
    for (const node of nodes) {
      const refused = await redeliverFailed(node, m.testKey);
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('RATE_LIMITED');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });
});
