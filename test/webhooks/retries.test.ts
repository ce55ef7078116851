/**
 * Delivery outcomes against real receivers: retries until a 2xx, redirects and timeouts as failures,
 * giving up after the last retry, the delivery log, redelivery, and automatic endpoint disabling.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { expectError, expectOk, formA, merchantApi } from '../orders/support.js';
import { allDeliveries, startReceiver, startWebhooksApp, waitFor, webhooksApi, type Receiver } from './support.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

let receiver: Receiver;
/** Where redirects point: must never be hit. */
let redirectTarget: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  redirectTarget = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await redirectTarget?.close();
});

/** A merchant with one test endpoint at `/<tag>` of the receiver, and order creation. */
async function merchantWithEndpoint(t: TestApp, tag: string) {
  const m = await t.createMerchant({ name: `Retries ${tag}` });
  const hooks = webhooksApi(t.url, m.testKey);
  const endpoint = expectOk(await hooks.create({ url: `${receiver.url}/${tag}` }), 201).body.endpoint as Json;
  const orders = merchantApi(t, m.testKey);
  return {
    m,
    hooks,
    endpoint,
    receipts: () => receiver.receipts.filter((r) => r.path === `/${tag}`),
    createOrder: async () => expectOk(await orders.create(formA()), 201).body.booking_id as string,
  };
}

const detailOf = async (hooks: ReturnType<typeof webhooksApi>, id: string) => expectOk(await hooks.delivery(id)).body as { delivery: Json; attempts: Json[] };

describe('retries (8 retries, backoff shrunk, 300 ms timeout)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startWebhooksApp({ WEBHOOK_TIMEOUT_MS: '300' });
  });
  afterAll(() => t?.stop());

  it('a receiver down for a while then up gets every event, none lost, duplicates only as retries of one webhook-id', async () => {
    const s = await merchantWithEndpoint(t, 'flaky');
    const upAt = Date.now() + 700;
    receiver.respond((r) => (r.path === '/flaky' && Date.now() < upAt ? 503 : 200));
    const bookings: string[] = [];
    for (let i = 0; i < 8; i++) {
      bookings.push(await s.createOrder());
      await new Promise((r) => setTimeout(r, 60));
    }
    const log = await waitFor(
      async () => {
        const all = await allDeliveries(s.hooks);
        return all.length === 8 && all.every((d) => d.status === 'delivered') && all;
      },
      { what: 'eight delivered deliveries' },
    );

    // Every event acknowledged exactly once, under the id the log knows.
    const acknowledged = s.receipts().filter((r) => r.status === 200);
    expect(acknowledged.map((r) => r.id).sort()).toEqual(log.map((d) => d.id).sort());
    expect(acknowledged.map((r) => JSON.parse(r.body).booking_id).sort()).toEqual([...bookings].sort());
    // Every other receipt is an earlier attempt of one of those ids, with the same body.
    let retried = 0;
    for (const d of log) {
      const got = receiver.of(d.id);
      expect(got.map((r) => r.status)).toEqual([...Array(got.length - 1).fill(503), 200]);
      expect(new Set(got.map((r) => r.body)).size).toBe(1);
      expect(d.attempts).toBe(got.length); // one request per attempt
      if (got.length > 1) retried++;
    }
    expect(retried).toBeGreaterThan(0);
    expect(s.receipts().every((r) => log.some((d) => d.id === r.id))).toBe(true);
  });

  it('a redirect is a failed attempt and is never followed', async () => {
    const s = await merchantWithEndpoint(t, 'moved');
    receiver.respond((r) => (r.path === '/moved' ? { status: 302, headers: { location: `${redirectTarget.url}/landed` } } : 200));
    await s.createOrder();
    const [delivery] = await allDeliveries(s.hooks);
    const detail = await waitFor(async () => {
      const d = await detailOf(s.hooks, delivery!.id);
      return d.attempts.length >= 2 && d;
    });
    expect(detail.attempts.slice(0, 2).map((a) => [a.status_code, a.error])).toEqual([
      [302, 'HTTP 302'],
      [302, 'HTTP 302'],
    ]);
    expect(detail.delivery).toMatchObject({ status: 'pending', last_status_code: 302 });
    expect(s.receipts().length).toBeGreaterThanOrEqual(2);
    expect(redirectTarget.receipts).toEqual([]);
    expectOk(await s.hooks.remove(s.endpoint.id)); // its remaining retries fail at once
    await waitFor(async () => (await detailOf(s.hooks, delivery!.id)).delivery.status === 'failed');
    expect(redirectTarget.receipts).toEqual([]);
  });

  it('a receiver that hangs longer than WEBHOOK_TIMEOUT_MS fails the attempt; the retry succeeds once it answers', async () => {
    const s = await merchantWithEndpoint(t, 'slow');
    receiver.respond((r, previous) => (r.path === '/slow' && previous.length === 0 ? 'hang' : 200));
    await s.createOrder();
    const [delivery] = await allDeliveries(s.hooks);
    const detail = await waitFor(async () => {
      const d = await detailOf(s.hooks, delivery!.id);
      return d.delivery.status === 'delivered' && d;
    });
    expect(detail.attempts).toHaveLength(2);
    expect(detail.attempts[0]).toMatchObject({ attempt: 1, status_code: null, error: 'timed out after 300 ms' });
    expect(detail.attempts[0]!.latency_ms).toBeGreaterThanOrEqual(295);
    expect(detail.attempts[0]!.latency_ms).toBeLessThan(2_000);
    expect(detail.attempts[1]).toMatchObject({ attempt: 2, status_code: 200, error: null });
    expect(receiver.of(delivery!.id).map((r) => r.status)).toEqual([0, 200]);
  });
});

describe('giving up, the delivery log and redelivery (2 retries)', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Retries after ~120 ms and ~600 ms: slow enough to see a delivery waiting for its retry.
    t = await startWebhooksApp({ WEBHOOK_MAX_RETRIES: '2', WEBHOOK_RETRY_SCALE: '0.002' });
  });
  afterAll(() => t?.stop());

  it('after the last retry the delivery is failed; the log shows attempts, status codes, latency and the next retry', async () => {
    const s = await merchantWithEndpoint(t, 'broken');
    receiver.respond((r) => (r.path === '/broken' ? 500 : 200));
    const booking = await s.createOrder();

    // Between attempts (after the first or the second): pending, with the next retry due.
    const waiting = await waitFor(async () => {
      const d = await detailOf(s.hooks, (await allDeliveries(s.hooks))[0]!.id);
      return d.delivery.attempts >= 1 && d.delivery.status === 'pending' && d;
    });
    const last = waiting.attempts[waiting.delivery.attempts - 1]!;
    expect(Date.parse(waiting.delivery.next_attempt_at)).toBeGreaterThan(Date.parse(last.at));
    expect(waiting.delivery).toMatchObject({ last_status_code: 500, last_error: 'HTTP 500', booking_id: booking, sequence: 1, event: 'order.status_changed' });

    const done = await waitFor(async () => {
      const d = await detailOf(s.hooks, waiting.delivery.id);
      return d.delivery.status === 'failed' && d;
    });
    expect(done.delivery).toMatchObject({ attempts: 3, next_attempt_at: null, last_status_code: 500, delivered_at: null });
    expect(done.attempts.map((a) => [a.attempt, a.status_code, a.error])).toEqual([
      [1, 500, 'HTTP 500'],
      [2, 500, 'HTTP 500'],
      [3, 500, 'HTTP 500'],
    ]);
    for (const a of done.attempts) expect(a.latency_ms).toEqual(expect.any(Number));
    const times = done.attempts.map((a) => Date.parse(a.at));
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(100); // ~120 ms ± 10 %
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(500); // ~600 ms ± 10 %
    expect(receiver.of(done.delivery.id)).toHaveLength(3);
    // The log lists it under status=failed, and not under delivered.
    expect((await allDeliveries(s.hooks, { status: 'failed' })).map((d) => d.id)).toEqual([done.delivery.id]);
    expect(await allDeliveries(s.hooks, { status: 'delivered' })).toEqual([]);

    // Redelivery of that one event: same webhook-id and body, delivered now; the attempt log keeps its history in order.
    receiver.respond(() => 200);
    const requeued = expectOk(await s.hooks.redeliver(done.delivery.id)).body.delivery as Json;
    expect(requeued).toMatchObject({ id: done.delivery.id, status: 'pending' });
    const after = await waitFor(async () => {
      const d = await detailOf(s.hooks, done.delivery.id);
      return d.delivery.status === 'delivered' && d;
    });
    expect(after.attempts.map((a) => a.status_code)).toEqual([500, 500, 500, 200]);
    const received = receiver.of(done.delivery.id);
    expect(received.map((r) => r.status)).toEqual([500, 500, 500, 200]);
    expect(new Set(received.map((r) => r.body)).size).toBe(1);
  });

  it('redelivers every failed delivery created in a time range, and only those', async () => {
    const s = await merchantWithEndpoint(t, 'outage');
    receiver.respond((r) => (r.path === '/outage' ? 500 : 200));
    await s.createOrder();
    await s.createOrder();
    await new Promise((r) => setTimeout(r, 20));
    const from = new Date().toISOString();
    await s.createOrder();
    await s.createOrder();
    const failed = await waitFor(async () => {
      const all = await allDeliveries(s.hooks);
      return all.length === 4 && all.every((d) => d.status === 'failed') && all;
    });
    const inRange = failed.filter((d) => d.created_at >= from).map((d) => d.id);
    expect(inRange).toHaveLength(2);

    receiver.respond(() => 200);
    const to = new Date(Date.now() + 60_000).toISOString();
    expect(expectOk(await s.hooks.redeliverFailed({ created_from: from, created_to: to })).body).toEqual({ success: true, requeued: 2, more: false, limit: 1000 });
    await waitFor(async () => (await allDeliveries(s.hooks, { status: 'delivered' })).length === 2);
    expect((await allDeliveries(s.hooks, { status: 'delivered' })).map((d) => d.id).sort()).toEqual([...inRange].sort());
    expect(await allDeliveries(s.hooks, { status: 'failed' })).toHaveLength(2);

    // A wider range requeues only what is still failed.
    const wide = { created_from: new Date(Date.now() - 3_600_000).toISOString(), created_to: to };
    expect(expectOk(await s.hooks.redeliverFailed(wide)).body.requeued).toBe(2);
    await waitFor(async () => (await allDeliveries(s.hooks, { status: 'delivered' })).length === 4);
    expect(s.receipts().filter((r) => r.status === 200)).toHaveLength(4);

    // The range is validated: both bounds, in order, at most 31 days.
    expectError(await s.hooks.redeliverFailed({ created_from: from }), 400, 'VALIDATION_ERROR');
    expectError(await s.hooks.redeliverFailed({ created_from: to, created_to: from }), 400, 'VALIDATION_ERROR');
    expectError(await s.hooks.redeliverFailed({ created_from: '2025-01-01T00:00:00Z', created_to: '2025-03-01T00:00:00Z' }), 400, 'VALIDATION_ERROR');
    expectError(await s.hooks.redeliverFailed({ created_from: 'yesterday', created_to: to }), 400, 'VALIDATION_ERROR');
  });
});

describe('automatic disabling (WEBHOOK_DISABLE_AFTER_HOURS ≈ 1 s)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startWebhooksApp({ WEBHOOK_DISABLE_AFTER_HOURS: '0.0003' });
  });
  afterAll(() => t?.stop());

  it('an endpoint failing for longer than the limit is disabled, with the reason shown; re-enabling it and redelivering recovers', async () => {
    const s = await merchantWithEndpoint(t, 'dead');
    receiver.respond((r) => (r.path === '/dead' ? 500 : 200));
    const started = Date.now();
    await s.createOrder();
    const disabled = await waitFor(async () => {
      const e = expectOk(await s.hooks.get(s.endpoint.id)).body.endpoint as Json;
      return !e.enabled && e;
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_080);
    expect(disabled.failing_since).toEqual(expect.any(String));
    expect(disabled.disabled_reason).toBe(`disabled automatically: every delivery failed since ${disabled.failing_since}`);
    expect((expectOk(await s.hooks.list()).body.endpoints as Json[])[0]).toMatchObject({ enabled: false, disabled_reason: disabled.disabled_reason });

    // Its pending delivery fails at the next attempt (without a request); new events are not queued for it.
    const [delivery] = await allDeliveries(s.hooks);
    const failed = await waitFor(async () => {
      const d = await detailOf(s.hooks, delivery!.id);
      return d.delivery.status === 'failed' && d;
    });
    expect(failed.delivery.last_error).toBe(`endpoint disabled: ${disabled.disabled_reason}`);
    const requests = s.receipts().length;
    expect(failed.attempts.filter((a) => a.status_code === 500)).toHaveLength(requests);
    await s.createOrder();
    expect(await allDeliveries(s.hooks)).toHaveLength(1);

    // The merchant fixes the receiver, re-enables the endpoint and redelivers what failed.
    receiver.respond(() => 200);
    const enabled = expectOk(await s.hooks.update(s.endpoint.id, { enabled: true })).body.endpoint as Json;
    expect(enabled).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
    const range = { created_from: new Date(started - 60_000).toISOString(), created_to: new Date(Date.now() + 60_000).toISOString() };
    expect(expectOk(await s.hooks.redeliverFailed(range)).body.requeued).toBe(1);
    await waitFor(async () => (await detailOf(s.hooks, delivery!.id)).delivery.status === 'delivered');
    expect(receiver.of(delivery!.id).at(-1)!.status).toBe(200);
  });
});
