/**
 * Watchers resync after a bus outage: two app nodes in-process on one SQLite file and a private
 * redis-server. With Redis down a status change on node B never reaches node A; when Redis is back
 * (same port, restarted), A's watchers get the current state at once: a tracking snapshot, the
 * order's current status on a merchant's order watch, without waiting for the next change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrackingUpdate } from '../../src/domain/watch/tracking.js';
import type { OrderUpdate } from '../../src/domain/watch/orders.js';
import { api, makeDataDir, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { hasRedisServerBinary, startRedisServer, type RedisServer } from '../helpers/redis.js';
import { courierOnDuty, expectOk, formA, north, PLACES } from '../orders/support.js';
import { until } from './support.js';

const SKIP = hasRedisServerBinary() ? '' : 'no redis-server on PATH';

describe.skipIf(SKIP)('watchers after a Redis restart', () => {
  let redis: RedisServer;
  let a: TestApp;
  let b: TestApp;
  let merchant: MerchantCredentials;

  beforeAll(async () => {
    redis = await startRedisServer();
    const dataDir = makeDataDir();
    const env = { REDIS_URL: redis.url, RATE_LIMIT_PER_MIN: '100000', WEBHOOK_WORKER: 'false', BUS_PING_MS: '500' };
    a = await startTestApp({ env, dataDir });
    b = await startTestApp({ env, dataDir });
    merchant = await a.createMerchant({ name: 'Resync' });
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await redis?.stop();
  });

  const busUp = (t: TestApp) => (t.app.container.bus as unknown as { stats(): { connected: boolean } }).stats().connected;

  it('a status change missed during the outage reaches the tracking watcher and the order watch on the other node when Redis is back', async () => {
    const created = expectOk(await api(`${a.url}/api/v1/orders`, { key: merchant.testKey, body: formA() }), 201).body;
    const bookingId = created.booking_id as string;
    const { tracking, orders, auth } = a.app.container.services;
    const order = await tracking.findTrackedOrder(created.tracking_number as string);

    const seen: TrackingUpdate[] = [];
    const stop = tracking.follow({ order, reference: created.tracking_number as string, onUpdate: (u) => seen.push(u) });
    const principal = await auth.authenticateApiKey({ apiKey: merchant.testKey });
    const watch = await orders.watch({ principal, ref: bookingId, only: 'status' });
    const statuses: OrderUpdate[] = [];
    const reading = (async () => {
      for await (const u of watch) statuses.push(u);
    })();
    await until(() => seen.length === 1, 'the first snapshot');
    await until(() => busUp(a) && busUp(b), 'both buses up');

    await redis.stop();
    await until(() => !busUp(a) && !busUp(b), 'both buses down');
    // Cancelled on B: A never hears it.
    expectOk(await api(`${b.url}/api/v1/orders/${bookingId}/cancel`, { key: merchant.testKey, body: {} }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(seen.filter((u) => u.type === 'snapshot' && u.view.status === 'cancelled')).toEqual([]);
    expect(statuses).toEqual([]);

    redis = await startRedisServer(redis.port);
    await until(() => busUp(a), 'A reconnected', 15_000);
    const snapshot = await until(() => seen.find((u) => u.type === 'snapshot' && u.view.status === 'cancelled'), 'the resync snapshot');
    expect(snapshot).toBeTruthy();
    const current = await until(() => statuses.find((u) => u.kind === 'status' && u.status === 'cancelled'), 'the resynced status');
    expect(current).toMatchObject({ orderId: order.id, status: 'cancelled' });
    stop();
    await watch.return?.();
    await reading;
  });

  it("the merchant-wide and courier-assignment streams get the statuses they missed when Redis is back (changed orders, one created during the outage)", async () => {
    await until(() => busUp(a) && busUp(b), 'both buses up');
    const shop = await a.createMerchant({ name: 'Streams' }); // its own orders only: the resync looks at recent ones
    const courier = await courierOnDuty(a, { mode: 'test', at: north(PLACES.providencia, 500) });
    const { orders, couriers, auth } = a.app.container.services;
    const principal = await auth.authenticateApiKey({ apiKey: shop.testKey });
    const merchantStream = orders.watchMerchant({ principal });
    const courierStream = couriers.watchAssignments({ courier: await auth.authenticateCourier({ token: courier.token }) });
    const onMerchant: OrderUpdate[] = [];
    const onCourier: OrderUpdate[] = [];
    const reading = [
      (async () => {
        for await (const u of merchantStream) onMerchant.push(u);
      })(),
      (async () => {
        for await (const u of courierStream) onCourier.push(u);
      })(),
    ];
    // Created on A with the courier on duty: both streams show it assigned.
    const assigned = expectOk(await api(`${a.url}/api/v1/orders`, { key: shop.testKey, body: formA() }), 201).body.booking_id as string;
    await until(() => onCourier.some((u) => u.kind === 'status' && u.orderId === assigned && u.status === 'assigned'), 'the assignment on the courier stream');
    await until(() => onMerchant.some((u) => u.kind === 'status' && u.orderId === assigned && u.status === 'assigned'), 'the assignment on the merchant stream');

    await redis.stop();
    await until(() => !busUp(a) && !busUp(b), 'both buses down');
    // On B while A hears nothing: the assigned order cancelled, another created.
    expectOk(await api(`${b.url}/api/v1/orders/${assigned}/cancel`, { key: shop.testKey, body: {} }));
    const created = expectOk(await api(`${b.url}/api/v1/orders`, { key: shop.testKey, body: formA() }), 201).body.booking_id as string;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(onMerchant.filter((u) => u.kind === 'status' && (u.status === 'cancelled' || u.orderId === created))).toEqual([]);
    const before = { merchant: onMerchant.length, courier: onCourier.length };

    redis = await startRedisServer(redis.port);
    await until(() => busUp(a), 'A reconnected', 15_000);
    const cancelled = await until(() => onMerchant.find((u) => u.kind === 'status' && u.orderId === assigned && u.status === 'cancelled'), 'the missed cancellation on the merchant stream');
    expect(cancelled).toMatchObject({ from: null });
    await until(() => onMerchant.find((u) => u.kind === 'status' && u.orderId === created), 'the order created during the outage on the merchant stream');
    await until(() => onCourier.find((u) => u.kind === 'status' && u.orderId === assigned && u.status === 'cancelled'), 'the missed cancellation on the courier stream');
    // Only what was missed: the two orders on the merchant stream, the one on the courier's.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(onMerchant.slice(before.merchant).map((u) => u.orderId).sort()).toEqual([assigned, created].sort());
    // (B may have given the new order to the courier freed by the cancellation: then that assignment was missed too.)
    const createdCourier = (await a.app.container.store.orders.findById(created))?.courierId;
    expect(onCourier.slice(before.courier).map((u) => u.orderId).sort()).toEqual(createdCourier === courier.id ? [assigned, created].sort() : [assigned]);
    await merchantStream.return?.();
    await courierStream.return?.();
    await Promise.all(reading);
  });

  it('a frozen Redis (SIGSTOP: the socket stays open) is detected by the subscriber ping; after SIGCONT the watcher has the current status', async () => {
    await until(() => busUp(a) && busUp(b), 'both buses up');
    const created = expectOk(await api(`${a.url}/api/v1/orders`, { key: merchant.testKey, body: formA() }), 201).body;
    const { tracking } = a.app.container.services;
    const order = await tracking.findTrackedOrder(created.tracking_number as string);
    const seen: TrackingUpdate[] = [];
    const stop = tracking.follow({ order, reference: created.tracking_number as string, onUpdate: (u) => seen.push(u) });
    await until(() => seen.length === 1, 'the first snapshot');

    redis.process!.kill('SIGSTOP');
    try {
      // Nothing closes the connection: only the unanswered PING (BUS_PING_MS 500) marks it down.
      await until(() => !busUp(a), 'A’s subscriber marked down', 5000);
      expectOk(await api(`${b.url}/api/v1/orders/${created.booking_id as string}/cancel`, { key: merchant.testKey, body: {} }));
    } finally {
      redis.process!.kill('SIGCONT');
    }
    await until(() => busUp(a), 'A reconnected', 15_000);
    await until(() => seen.find((u) => u.type === 'snapshot' && u.view.status === 'cancelled'), 'the current status on A');
    stop();
  });
});
