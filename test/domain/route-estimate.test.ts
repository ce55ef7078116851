import { describe, expect, it } from 'vitest';
import { DROPOFF_HANDLING_MINS, estimateDeliveries, PICKUP_HANDLING_MINS } from '../../src/domain/eta/route-estimate.js';
import { distanceMeters } from '../../src/domain/geo.js';
import type { LatLng, Order, OrderStatus } from '../../src/domain/types.js';
import { at, order } from '../contract/fixtures.js';

const SPEED_KMH = 26;
const DETOUR = 1.3;
/** Minutes to drive from a to b by road at the test speed. */
const drive = (a: LatLng, b: LatLng, scale = 1) => (distanceMeters(a, b) * DETOUR) / 1000 / SPEED_KMH * 60 / scale;
const minutesBetween = (from: Date, to: Date) => (to.getTime() - from.getTime()) / 60_000;

function job(statuses: OrderStatus[], createdAt = at(0)): Order[] {
  return statuses.map((status) => Object.assign(order({ merchantId: 'm_1', createdAt }), { status, prepTimeMins: 0 }));
}

describe('estimateDeliveries (the live ETA of a courier job)', () => {
  const now = new Date(Date.parse(at(600)));
  const options = (orders: Order[], from: LatLng, timeScale = 1) => ({ from, speedKmh: SPEED_KMH, detourFactor: DETOUR, orders, now, timeScale });

  it('assigned: courier → pickup, pickup handling, pickup → drop-off', () => {
    const [o] = job(['assigned']);
    const from = { lat: -33.44, lng: -70.65 };
    const eta = estimateDeliveries(options([o!], from)).get(o!.id)!;
    const expected = drive(from, o!.pickup) + PICKUP_HANDLING_MINS + drive(o!.pickup, o!.dropoff);
    expect(minutesBetween(now, eta)).toBeCloseTo(expected, 1);
  });

  it('picked up: only the road left to the drop-off; closer means earlier', () => {
    const [o] = job(['picked_up']);
    const far = estimateDeliveries(options([o!], o!.pickup)).get(o!.id)!;
    const halfway = { lat: (o!.pickup.lat + o!.dropoff.lat) / 2, lng: (o!.pickup.lng + o!.dropoff.lng) / 2 };
    const near = estimateDeliveries(options([o!], halfway)).get(o!.id)!;
    expect(minutesBetween(now, far)).toBeCloseTo(drive(o!.pickup, o!.dropoff), 1);
    expect(near.getTime()).toBeLessThan(far.getTime());
  });

  it('waits at the pickup until the parcel is ready (preparation time after creation)', () => {
    const o = Object.assign(job(['arrived_pickup'], at(590))[0]!, { prepTimeMins: 20 });
    const eta = estimateDeliveries(options([o], o.pickup)).get(o.id)!;
    const ready = Date.parse(at(590)) + 20 * 60_000;
    expect(minutesBetween(new Date(ready), eta)).toBeCloseTo(PICKUP_HANDLING_MINS + drive(o.pickup, o.dropoff), 1);
  });

  it('never leaves the pickup of a scheduled order before its scheduled pickup time', () => {
    const [o] = job(['assigned']);
    const scheduled = Object.assign(o!, { scheduledPickupAt: new Date(now.getTime() + 90 * 60_000).toISOString() });
    const eta = estimateDeliveries(options([scheduled], scheduled.pickup)).get(scheduled.id)!;
    expect(minutesBetween(now, eta)).toBeCloseTo(90 + PICKUP_HANDLING_MINS + drive(scheduled.pickup, scheduled.dropoff), 1);
  });

  it('a batch: the parcels in hand first, then each order not picked up; later stops add the handling before them', () => {
    const [first, second, third] = job(['assigned', 'picked_up', 'assigned']);
    const from = first!.pickup;
    const etas = estimateDeliveries(options([first!, second!, third!], from));
    // second is in hand: straight to its drop-off.
    expect(minutesBetween(now, etas.get(second!.id)!)).toBeCloseTo(drive(from, second!.dropoff), 1);
    // first comes after that drop-off and its handover, then its own pickup.
    const firstEta = drive(from, second!.dropoff) + DROPOFF_HANDLING_MINS + drive(second!.dropoff, first!.pickup) + PICKUP_HANDLING_MINS + drive(first!.pickup, first!.dropoff);
    expect(minutesBetween(now, etas.get(first!.id)!)).toBeCloseTo(firstEta, 1);
    expect(etas.get(third!.id)!.getTime()).toBeGreaterThan(etas.get(first!.id)!.getTime());
  });

  it('an order whose courier stands at its drop-off gets no estimate, but delays the orders after it', () => {
    const [here, next] = job(['arrived_dropoff', 'picked_up']);
    const etas = estimateDeliveries(options([here!, next!], here!.dropoff));
    expect(etas.has(here!.id)).toBe(false);
    expect(minutesBetween(now, etas.get(next!.id)!)).toBeCloseTo(DROPOFF_HANDLING_MINS + drive(here!.dropoff, next!.dropoff), 1);
  });

  it('the sandbox pace divides every duration', () => {
    const [o] = job(['picked_up']);
    const eta = estimateDeliveries(options([o!], o!.pickup, 10)).get(o!.id)!;
    expect(minutesBetween(now, eta)).toBeCloseTo(drive(o!.pickup, o!.dropoff, 10), 1);
  });
  it('a multi-stop order: through its open stops in route order, a handover at each before the last', () => {
    const [o] = job(['picked_up']);
    const [a, b] = [{ lat: -33.43, lng: -70.60 }, { lat: -33.45, lng: -70.62 }];
    const stop = (location: LatLng, status: 'pending' | 'delivered', index: number) => ({
      id: `stp_${index}`, index, givenIndex: index, location: Object.assign({}, o!.dropoff, location), contact: { name: 'x', phone: null }, reference: null, items: [],
      status, eta: at(0), proof: null, failure: null, arrivedAt: null,
    });
    const multi = Object.assign({}, o!, { stops: [stop(a, 'pending', 0), stop(b, 'pending', 1)], dropoff: Object.assign({}, o!.dropoff, b) });
    const eta = estimateDeliveries(options([multi], o!.pickup)).get(o!.id)!;
    expect(minutesBetween(now, eta)).toBeCloseTo(drive(o!.pickup, a) + DROPOFF_HANDLING_MINS + drive(a, b), 1);
    // The first stop served: only the road on to the second is left.
    const served = Object.assign({}, multi, { stops: [stop(a, 'delivered', 0), stop(b, 'pending', 1)] });
    expect(minutesBetween(now, estimateDeliveries(options([served], a)).get(o!.id)!)).toBeCloseTo(drive(a, b), 1);
  });
});
