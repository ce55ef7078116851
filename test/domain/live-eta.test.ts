import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite/store.js';
import { createLiveEtaService, ETA_ANNOUNCE_INTERVAL_MS } from '../../src/domain/eta/live-eta.js';
import { DEFAULT_SANTIAGO_TARIFF } from '../../src/domain/tariffs.js';
import type { Order, WebhookEndpoint } from '../../src/domain/types.js';
import { createWebhookOutbox } from '../../src/domain/webhooks/outbox.js';
import { createUlidSource } from '../../src/ports/ids.js';
import type { Store } from '../../src/ports/store.js';
import { courier as courierFixture, creation, order as orderFixture, storeMerchant } from '../contract/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'exd-live-eta-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('live ETA across nodes: one store, several app processes', () => {
  let store: Store;
  beforeEach(() => {
    store = createSqliteStore({ file: join(dir, `store-${++n}.sqlite`) });
  });
  afterEach(() => store.close());

  /** One app process's live ETA (its own outbox and caches) over the shared store. */
  const node = () => {
    const clock = { now: () => new Date() };
    const outbox = createWebhookOutbox({ store, clock, ids: createUlidSource(), publicBaseUrl: () => 'https://express.example.cl' });
    return createLiveEtaService({ store, outbox, tariff: DEFAULT_SANTIAGO_TARIFF, sandboxSpeed: 1 });
  };

  async function pickedUpOrder() {
    const merchantId = await storeMerchant(store);
    const endpoint: WebhookEndpoint = {
      id: 'we_eta', merchantId, mode: 'live', url: 'https://hooks.example.cl/eta', description: null, events: ['order.eta_changed'], payloadShape: 'event', signing: 'symmetric',
      enabled: true, disabledReason: null, failingSince: null, createdAt: new Date().toISOString(), updatedAt: new Date().toISOString(),
    };
    await store.webhooks.insertEndpoint(endpoint);
    const rider = courierFixture({ vehicle: 'bike' });
    await store.couriers.insert(rider);
    // The stored estimate is far from what the courier's position gives: every node wants to announce.
    const order: Order = Object.assign(orderFixture({ merchantId }), { status: 'picked_up' as const, courierId: rider.id });
    await store.orders.create(creation(order));
    return { merchantId, rider, order };
  }

  it('nodes seeing the same due announcement at once write one order.eta_changed; the interval holds on every node', async () => {
    const { merchantId, rider, order } = await pickedUpOrder();
    const at = new Date().toISOString();
    const report = { courier: rider, location: { lat: order.pickup.lat, lng: order.pickup.lng }, orders: [order], at };
    const nodes = [node(), node(), node()];
    const results = await Promise.all(nodes.map((eta) => eta.followCourier(report)));
    expect(results.filter((r) => r.wroteWebhooks)).toHaveLength(1);
    const deliveries = await store.webhooks.listDeliveries({ merchantId, mode: 'live', limit: 100 });
    expect(deliveries.map((d) => d.eventType)).toEqual(['order.eta_changed']);
    const stored = (await store.orders.findById(order.id))!;
    expect(stored.etaAnnounced).toEqual({ deliveryAt: stored.estimatedDeliveryAt, at });
    expect(results.every((r) => r.estimates[order.id] === stored.estimatedDeliveryAt)).toBe(true);

    // Within the interval, a fresh node (no memory of its own) reading a stale copy of the order is refused by the store's slot.
    const later = new Date(Date.parse(at) + ETA_ANNOUNCE_INTERVAL_MS - 1_000).toISOString();
    const stale = await node().followCourier(Object.assign({}, report, { at: later, location: order.dropoff }));
    expect(stale.wroteWebhooks).toBe(false);
    expect(await store.webhooks.listDeliveries({ merchantId, mode: 'live', limit: 100 })).toHaveLength(1);
  });

  it('a finished order is never written, whatever the courier reports', async () => {
    const { merchantId, rider, order } = await pickedUpOrder();
    await store.orders.apply({ id: order.id, from: ['picked_up'], to: 'completed' });
    const result = await node().followCourier({ courier: rider, location: order.dropoff, orders: [order], at: new Date().toISOString() });
    expect(result.wroteWebhooks).toBe(false);
    expect(await store.orders.findById(order.id)).toMatchObject({ status: 'completed', estimatedDeliveryAt: order.estimatedDeliveryAt });
    expect(await store.webhooks.listDeliveries({ merchantId, mode: 'live', limit: 100 })).toEqual([]);
  });
});
