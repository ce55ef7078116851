/**
 * Micro-benchmark of the live ETA's share of a courier report (issue #17 item 3): the domain call
 * `liveEta.followCourier` that `couriers.reportPosition` makes once per report, on a real SQLite
 * file, for a courier with one picked-up order. Measures CPU µs per call on the common path (the
 * estimate moved less than a minute: nothing written) and on the write path (moved: one
 * `orders.updateEstimate`), plus the pure estimate alone. Not part of `npm run bench`.
 *
 *   npx tsx bench/live-eta-micro.ts [--calls 20000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createSqliteStore } from '../src/adapters/sqlite/store.js';
import { createLiveEtaService } from '../src/domain/eta/live-eta.js';
import { estimateDeliveries } from '../src/domain/eta/route-estimate.js';
import { DEFAULT_SANTIAGO_TARIFF } from '../src/domain/tariffs.js';
import { createWebhookOutbox } from '../src/domain/webhooks/outbox.js';
import { createUlidSource } from '../src/ports/ids.js';
import { courier as courierFixture, creation, order as orderFixture, storeMerchant } from '../test/contract/fixtures.js';

const { values } = parseArgs({ options: { calls: { type: 'string' } }, strict: false });
const CALLS = Number(values.calls ?? 20_000);

const dir = mkdtempSync(join(tmpdir(), 'exd-eta-bench-'));
const store = createSqliteStore({ file: join(dir, 'bench.sqlite') });
try {
  const clock = { now: () => new Date() };
  const outbox = createWebhookOutbox({ store, clock, ids: createUlidSource(), publicBaseUrl: () => 'http://bench' });
  const liveEta = createLiveEtaService({ store, outbox, tariff: DEFAULT_SANTIAGO_TARIFF, sandboxSpeed: 1 });
  const merchantId = await storeMerchant(store);
  const rider = courierFixture({ vehicle: 'motorcycle' });
  await store.couriers.insert(rider);
  const now = new Date();
  const base = Object.assign(orderFixture({ merchantId, createdAt: now.toISOString() }), { status: 'picked_up' as const, courierId: rider.id });
  await store.orders.create(creation(base));
  const from = { lat: base.pickup.lat, lng: base.pickup.lng };
  // The stored estimate is what the report computes: the common path writes nothing.
  const settled = estimateDeliveries({ from, speedKmh: 26, detourFactor: 1.3, orders: [base], now, timeScale: 1 }).get(base.id)!;
  const order = Object.assign({}, base, { estimatedDeliveryAt: settled.toISOString() });

  const cpuMicros = async (label: string, calls: number, run: (i: number) => Promise<unknown> | unknown) => {
    for (let i = 0; i < Math.min(2_000, calls); i++) await run(i); // warm-up
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i++) await run(i);
    const used = process.cpuUsage(start);
    console.log(`${label.padEnd(58)} ${((used.user + used.system) / calls).toFixed(2).padStart(8)} µs CPU per call (${calls} calls)`);
  };

  await cpuMicros('estimateDeliveries (pure, one order)', CALLS, () =>
    estimateDeliveries({ from, speedKmh: 26, detourFactor: 1.3, orders: [order], now: new Date(), timeScale: 1 }),
  );
  await cpuMicros('followCourier, estimate unchanged (no write)', CALLS, () =>
    liveEta.followCourier({ courier: rider, location: from, orders: [order], at: new Date(now.getTime() + 1_000).toISOString() }),
  );
  // Each call sees an estimate 5 minutes off: one updateEstimate per call (the announcement's slot is taken once per 2 min).
  const stale = Object.assign({}, order, { estimatedDeliveryAt: new Date(settled.getTime() - 5 * 60_000).toISOString(), etaAnnounced: { deliveryAt: order.estimatedDeliveryAt, at: now.toISOString() } });
  await cpuMicros('followCourier, estimate moved ≥ 1 min (one store write)', Math.min(CALLS, 5_000), () =>
    liveEta.followCourier({ courier: rider, location: from, orders: [stale], at: new Date(now.getTime() + 1_000).toISOString() }),
  );
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
