import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANTIAGO_TARIFF } from '../../src/domain/tariffs.js';
import type { Mode } from '../../src/domain/types.js';
import type { MerchantCredentials, TestApp } from '../helpers/app.js';
import { EVIDENCE, PLACES, courierOnDuty, expectOk, formA, historyOf, merchantApi, north, startOrdersApp, type CourierClient } from './support.js';

const RUNS = 100;

describe('cancel racing the pickup', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  const couriers = {} as Record<Mode, CourierClient>;
  beforeAll(async () => {
    t = await startOrdersApp();
    m = await t.createMerchant({ name: 'Race Merchant' });
    // One courier per mode, reused: it is freed by the cancellation or by finishing the delivery.
    for (const mode of ['test', 'live'] as const) couriers[mode] = await courierOnDuty(t, { mode, at: north(PLACES.providencia, 400) });
  });
  afterAll(() => t?.stop());

  it(`${RUNS} runs: exactly one of cancel and picked_up wins each time, and the history agrees`, async () => {
    const wins = { cancel: 0, pickup: 0 };
    for (let run = 0; run < RUNS; run++) {
      const mode: Mode = run % 2 === 0 ? 'test' : 'live';
      const courier = couriers[mode];
      const orders = merchantApi(t, mode === 'live' ? m.liveKey : m.testKey);
      const created = expectOk(await orders.create(formA({ reference_id: `RACE-${run}` })), 201);
      expect(created.body.status, `run ${run}`).toBe('assigned');
      const id: string = created.body.booking_id;

      // Both requests are in flight together; which one is sent first alternates (modes alternate every run).
      const fire = { cancel: () => orders.cancel(id, { reason: `race ${run}` }), pickup: () => courier.status(id, 'picked_up') };
      const [cancel, pickup] =
        run % 4 < 2
          ? await Promise.all([fire.cancel(), fire.pickup()])
          : await Promise.all([fire.pickup(), fire.cancel()]).then(([p, c]) => [c, p] as const);
      const label = `run ${run} (${mode}): cancel ${cancel.status} ${cancel.body.error?.code ?? ''}, pickup ${pickup.status} ${pickup.body.error?.code ?? ''}`;
      const order = expectOk(await orders.get(id)).body;
      const history = historyOf(expectOk(await orders.events(id)).body.events);
      const ledger = (await t.app.container.store.ledger.listByMerchant({ merchantId: m.merchantId, mode })).filter((e) => e.orderId === id);

      if (cancel.status === 200) {
        wins.cancel++;
        expect(pickup.status, label).toBe(409);
        expect(pickup.body.error.code, label).toBe('INVALID_STATUS_TRANSITION');
        expect(order.status, label).toBe('cancelled');
        // The pickup may have recorded its skipped arrival first: then the cancel left the pickup, and paid its fee.
        const atPickup = history.length === 4;
        expect(history, label).toEqual(atPickup ? ['new', 'assigned', 'arrived_pickup', 'cancelled'] : ['new', 'assigned', 'cancelled']);
        const { assigned_fee, at_pickup_fee } = DEFAULT_SANTIAGO_TARIFF.cancellation;
        expect(cancel.body.cancellation_fee, label).toBe(atPickup ? at_pickup_fee : assigned_fee);
        expect(ledger.map((e) => e.kind), label).toEqual(mode === 'live' ? ['charge', 'reversal'] : []);
        expect(expectOk(await courier.me()).body.courier, label).toMatchObject({ status: 'available', job: null });
      } else {
        wins.pickup++;
        expect(cancel.status, label).toBe(409);
        expect(cancel.body.error.code, label).toBe('ORDER_NOT_CANCELLABLE');
        expect(pickup.status, label).toBe(200);
        expect(order.status, label).toBe('picked_up');
        expect(history, label).toEqual(['new', 'assigned', 'arrived_pickup', 'picked_up']);
        expect(ledger.map((e) => e.kind), label).toEqual(mode === 'live' ? ['charge'] : []);
        expect(expectOk(await courier.me()).body.courier, label).toMatchObject({ status: 'busy', job: { kind: 'order', id } });
        // Finish it so the courier is free for the next run.
        expectOk(await courier.deliver(id, { driver_id: courier.id, coords: PLACES.lasCondes, ...EVIDENCE }));
        expectOk(await courier.position(north(PLACES.providencia, 400)));
      }
      expect(order.status, label).toBe(history.at(-1));
    }
    // Not a timing assertion: both outcomes are legal; this only reports how the runs went.
    console.log(`cancel won ${wins.cancel}, pickup won ${wins.pickup} of ${RUNS} runs`);
    expect(wins.cancel + wins.pickup).toBe(RUNS);
  });
});
