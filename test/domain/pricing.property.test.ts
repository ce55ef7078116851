import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../src/domain/errors.js';
import { SERVICE_AREA } from '../../src/domain/geo.js';
import { priceRoute } from '../../src/domain/pricing.js';
import { DEFAULT_SANTIAGO_TARIFF, tariffSchema, type Tariff } from '../../src/domain/tariffs.js';
import { VEHICLE_TYPES } from '../../src/domain/types.js';

const NOW = new Date('2025-03-14T15:00:00.000Z');

const point = fc.record({
  lat: fc.double({ min: SERVICE_AREA.minLat, max: SERVICE_AREA.maxLat, noNaN: true }),
  lng: fc.double({ min: SERVICE_AREA.minLng, max: SERVICE_AREA.maxLng, noNaN: true }),
});
const prep = fc.integer({ min: 0, max: 240 });

/** Valid tariff tables: 1–4 classes growing in capacity, fares that never fall. */
const tariffArb: fc.Arbitrary<Tariff> = fc
  .record({
    detour: fc.double({ min: 1, max: 3, noNaN: true }),
    first: fc.record({ max_kg: fc.integer({ min: 1, max: 50 }), base_fare: fc.integer({ min: 0, max: 5000 }), per_km: fc.integer({ min: 0, max: 1000 }) }),
    steps: fc.array(
      fc.record({
        kg: fc.integer({ min: 1, max: 300 }),
        base: fc.integer({ min: 0, max: 3000 }),
        perKm: fc.integer({ min: 0, max: 500 }),
        speed: fc.integer({ min: 5, max: 120 }),
      }),
      { maxLength: VEHICLE_TYPES.length - 1 },
    ),
    firstSpeed: fc.integer({ min: 5, max: 120 }),
    discount: fc.double({ min: 0, max: 0.9, noNaN: true }),
  })
  .map(({ detour, first, steps, firstSpeed, discount }) => {
    const vehicles: Tariff['vehicles'] = [{ type: VEHICLE_TYPES[0], ...first, speed_kmh: firstSpeed }];
    steps.forEach((s, i) => {
      const prev = vehicles[i]!;
      vehicles.push({
        type: VEHICLE_TYPES[i + 1]!,
        max_kg: prev.max_kg + s.kg,
        base_fare: prev.base_fare + s.base,
        per_km: prev.per_km + s.perKm,
        speed_kmh: s.speed,
      });
    });
    return tariffSchema.parse({
      currency: 'CLP',
      detour_factor: detour,
      default_approach_mins: 10,
      batched_discount: discount,
      batched_extra_mins: 90,
      vehicles,
    });
  });

const tariffs = fc.oneof(fc.constant(DEFAULT_SANTIAGO_TARIFF), tariffArb);
const maxKg = (t: Tariff) => t.vehicles.at(-1)!.max_kg;
/** A weight some class carries, as a fraction of the largest capacity. */
const share = fc.double({ min: 0, max: 1, noNaN: true });

const price = (tariff: Tariff, origin: { lat: number; lng: number }, destination: { lat: number; lng: number }, weightKg = 0, prepTimeMins = 0) =>
  priceRoute({ tariff, origin, destination, weightKg, prepTimeMins, now: NOW });

describe('pricing properties (fast-check)', () => {
  it('price and travel time never decrease with distance (any two routes, same weight)', () => {
    fc.assert(
      fc.property(tariffs, point, point, point, point, share, (tariff, o1, d1, o2, d2, w) => {
        const weight = w * maxKg(tariff);
        const [a, b] = [price(tariff, o1, d1, weight), price(tariff, o2, d2, weight)].sort((x, y) => x.distanceM - y.distanceM);
        expect(a!.price).toBeLessThanOrEqual(b!.price);
        expect(a!.travelMins).toBeLessThanOrEqual(b!.travelMins);
        expect(a!.rates[1]!.cost).toBeLessThanOrEqual(b!.rates[1]!.cost);
      }),
    );
  });

  it('price never decreases as the destination moves away along a meridian', () => {
    fc.assert(
      fc.property(tariffs, point, fc.double({ min: 0, max: 0.5, noNaN: true }), fc.double({ min: 0, max: 0.5, noNaN: true }), share, (tariff, o, x, y, w) => {
        const [near, far] = [Math.min(x, y), Math.max(x, y)];
        const weight = w * maxKg(tariff);
        const a = price(tariff, o, { lat: o.lat - near, lng: o.lng }, weight);
        const b = price(tariff, o, { lat: o.lat - far, lng: o.lng }, weight);
        expect(a.distanceM).toBeLessThanOrEqual(b.distanceM);
        expect(a.price).toBeLessThanOrEqual(b.price);
      }),
    );
  });

  it('price never decreases with weight (same route), and the vehicle never gets smaller', () => {
    fc.assert(
      fc.property(tariffs, point, point, share, share, (tariff, o, d, x, y) => {
        const [light, heavy] = [Math.min(x, y) * maxKg(tariff), Math.max(x, y) * maxKg(tariff)];
        const a = price(tariff, o, d, light);
        const b = price(tariff, o, d, heavy);
        expect(a.price).toBeLessThanOrEqual(b.price);
        a.rates.forEach((rate, i) => expect(rate.cost).toBeLessThanOrEqual(b.rates[i]!.cost));
        const order = tariff.vehicles.map((v) => v.type);
        expect(order.indexOf(a.vehicleType)).toBeLessThanOrEqual(order.indexOf(b.vehicleType));
      }),
    );
  });

  it('total = prep + travel; pickup = now + prep; delivery − pickup = travel; the express rate is the total', () => {
    fc.assert(
      fc.property(tariffs, point, point, share, prep, (tariff, o, d, w, prepMins) => {
        const q = price(tariff, o, d, w * maxKg(tariff), prepMins);
        expect(q.prepTimeMins).toBe(prepMins);
        expect(q.totalMins).toBe(prepMins + q.travelMins);
        expect(q.travelMins).toBeGreaterThanOrEqual(1);
        expect(q.pickupAt.getTime() - NOW.getTime()).toBe(prepMins * 60_000);
        expect(q.deliveryAt.getTime() - q.pickupAt.getTime()).toBe(q.travelMins * 60_000);
        expect(q.rates[0]).toMatchObject({ id: 'express', cost: q.price, estimatedMinutes: q.totalMins, recommended: true });
        expect(q.rates[1]!.cost).toBeLessThanOrEqual(q.price);
        expect(q.rates.filter((r) => r.recommended)).toHaveLength(1);
      }),
    );
  });

  it('prices are whole pesos rounded up to 10, never below the base fare', () => {
    fc.assert(
      fc.property(tariffs, point, point, share, (tariff, o, d, w) => {
        const q = price(tariff, o, d, w * maxKg(tariff));
        for (const rate of q.rates) expect(rate.cost % 10).toBe(0);
        const vehicle = tariff.vehicles.find((v) => v.type === q.vehicleType)!;
        expect(q.price).toBeGreaterThanOrEqual(vehicle.base_fare);
      }),
    );
  });

  it('a weight beyond the largest class is WEIGHT_EXCEEDS_CAPACITY', () => {
    fc.assert(
      fc.property(tariffs, point, point, fc.double({ min: 0.001, max: 10_000, noNaN: true }), (tariff, o, d, extra) => {
        let caught: unknown;
        try {
          price(tariff, o, d, maxKg(tariff) + extra);
        } catch (error) {
          caught = error;
        }
        expect(isAppError(caught) && caught.code).toBe('WEIGHT_EXCEEDS_CAPACITY');
      }),
    );
  });

  describe('the tariff schema', () => {
    const withVehicles = (t: Tariff, vehicles: Tariff['vehicles']) => ({ ...t, vehicles });
    const multiClass = tariffArb.filter((t) => t.vehicles.length >= 2);
    const index = (t: Tariff) => fc.integer({ min: 1, max: t.vehicles.length - 1 });

    it('accepts the default Santiago tariff', () => {
      expect(tariffSchema.safeParse(DEFAULT_SANTIAGO_TARIFF).success).toBe(true);
    });

    it('refuses tables whose base fare or per-km fare falls as capacity grows', () => {
      fc.assert(
        fc.property(
          multiClass.chain((t) => fc.tuple(fc.constant(t), index(t), fc.constantFrom('base_fare', 'per_km'), fc.integer({ min: 1, max: 1000 }))),
          ([t, i, fare, drop]) => {
            const previous = t.vehicles[i - 1]![fare];
            fc.pre(previous >= 1);
            const vehicles = t.vehicles.map((v, j) => (j === i ? { ...v, [fare]: Math.max(0, previous - drop) } : v));
            const parsed = tariffSchema.safeParse(withVehicles(t, vehicles));
            expect(parsed.success).toBe(false);
            expect(parsed.error!.issues.some((issue) => issue.path.join('.') === `vehicles.${i}`)).toBe(true);
          },
        ),
      );
    });

    it('refuses tables whose capacity does not grow', () => {
      fc.assert(
        fc.property(multiClass.chain((t) => fc.tuple(fc.constant(t), index(t))), ([t, i]) => {
          const vehicles = t.vehicles.map((v, j) => (j === i ? { ...v, max_kg: t.vehicles[i - 1]!.max_kg } : v));
          expect(tariffSchema.safeParse(withVehicles(t, vehicles)).success).toBe(false);
        }),
      );
    });

    it('refuses the default table with any two classes swapped', () => {
      const v = DEFAULT_SANTIAGO_TARIFF.vehicles;
      for (let i = 1; i < v.length; i++) {
        const swapped = [...v];
        [swapped[i - 1], swapped[i]] = [swapped[i]!, swapped[i - 1]!];
        expect(tariffSchema.safeParse(withVehicles(DEFAULT_SANTIAGO_TARIFF, swapped)).success).toBe(false);
      }
    });
  });
});
