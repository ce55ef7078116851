import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MerchantPrincipal } from '../../src/domain/auth.js';
import { reportPositionCommandSchema } from '../../src/domain/couriers.js';
import { distanceMeters } from '../../src/domain/geo.js';
import { SIMULATED_PLATE_PREFIX } from '../../src/domain/sandbox.js';
import { DEFAULT_SANTIAGO_TARIFF } from '../../src/domain/tariffs.js';
import type { Courier, LatLng, VehicleType } from '../../src/domain/types.js';
import { api, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { startOrdersApp } from '../orders/support.js';

const METRES_PER_DEGREE_LAT = 111_195.08;
const BASE: LatLng = { lat: -33.4372, lng: -70.6506 };
/** Where the couriers of the other vehicles wait, so that dispatch picks the vehicle under test. */
const ELSEWHERE: LatLng = { lat: -33.6, lng: -70.75 };
const WEIGHT_FOR: Record<VehicleType, number> = { bike: 1, motorcycle: 10, car: 100, van: 500 };
const speedOf = (vehicle: VehicleType) => DEFAULT_SANTIAGO_TARIFF.vehicles.find((v) => v.type === vehicle)!.speed_kmh;
/** Comunas the gazetteer places (locality precision: no arrival by position there). */
const COMUNAS = ['Providencia', 'Las Condes', 'Ñuñoa', 'Santiago', 'La Reina', 'Macul', 'Recoleta'];

function offset(p: LatLng, northM: number, eastM: number): LatLng {
  return { lat: p.lat + northM / METRES_PER_DEGREE_LAT, lng: p.lng + eastM / (METRES_PER_DEGREE_LAT * Math.cos((p.lat * Math.PI) / 180)) };
}

/**
 * The simulator driven tick by tick with a fake clock (no timer): whatever the vehicle, speed, tick
 * and distances, every simulated order reaches `completed`. Distances are whole steps plus a
 * fraction, so a courier often ends one step short of a stop by more than the 50 m arrival radius:
 * the case that used to stall (the whole stop object reported as a position, refused every tick).
 */
describe('sandbox simulator (property, fake clock)', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let nowMs = Date.parse('2025-03-14T15:00:00.000Z');
  let fleet: Courier[];

  beforeAll(async () => {
    t = await startOrdersApp({ clock: { now: () => new Date(nowMs) }, env: { SANDBOX_SPEED: '10' } });
    m = await t.createMerchant();
    fleet = await t.app.container.services.sandbox.ensureSimulatedFleet({ perVehicle: 1 });
    // Every position the simulator reports must pass the strict check the courier edges apply
    // (REST, GraphQL and the courier socket parse with this schema): a stop object does not.
    const { couriers } = t.app.container.services;
    const report = couriers.reportPosition;
    couriers.reportPosition = (options) => report({ ...options, input: reportPositionCommandSchema.parse(options.input) });
  });
  afterAll(() => t.stop());

  const scenario = fc.record({
    vehicle: fc.constantFrom<VehicleType>('bike', 'motorcycle', 'car', 'van'),
    speed: fc.integer({ min: 1, max: 1000 }),
    tickSeconds: fc.double({ min: 0.05, max: 5, noNaN: true }),
    toPickup: fc.record({ steps: fc.integer({ min: 0, max: 6 }), fraction: fc.double({ min: 0, max: 0.999, noNaN: true }) }),
    toDropoff: fc.record({ steps: fc.integer({ min: 0, max: 6 }), fraction: fc.double({ min: 0, max: 0.999, noNaN: true }) }),
    /** null: drop-off by coordinates; else a comuna named by text (locality precision). */
    comuna: fc.option(fc.constantFrom(...COMUNAS), { freq: 3 }),
  });

  it('drives every simulated order to completed', async () => {
    const { services, store } = t.app.container;
    let stalls = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const merchant = await services.merchants.configureMerchant({ merchantId: m.merchantId, input: { sandboxSpeed: s.speed } });
        for (const courier of fleet) {
          const current = (await store.couriers.findById(courier.id))!;
          await services.couriers.reportPosition({ courier: current, input: current.vehicle === s.vehicle ? BASE : ELSEWHERE });
        }
        const stepM = (speedOf(s.vehicle) / 3.6) * s.tickSeconds * s.speed;
        const along = (leg: { steps: number; fraction: number }) => Math.min((leg.steps + leg.fraction) * stepM, 25_000);
        const pickup = offset(BASE, along(s.toPickup), 0);
        const dropoff = s.comuna ? `Av. Principal 100, ${s.comuna}` : offset(pickup, 0, along(s.toDropoff));
        const principal: MerchantPrincipal = { kind: 'merchant', merchant, mode: 'test', keyId: 'property' };
        const { order } = await services.orders.createOrder({
          principal,
          input: { pickup, dropoff, customerName: 'Prueba', customerPhone: '+56912345678', totalWeightKg: WEIGHT_FOR[s.vehicle] },
        });
        expect(order.status).toBe('assigned');
        const courier = fleet.find((c) => c.id === order.courierId)!;
        expect(courier.vehicle).toBe(s.vehicle);

        const legs = distanceMeters(BASE, order.pickup) + distanceMeters(order.pickup, order.dropoff);
        const maxTicks = Math.ceil(legs / stepM) + 8;
        let status = order.status;
        for (let i = 0; i < maxTicks && status !== 'completed'; i++) {
          nowMs += s.tickSeconds * 1000;
          await services.sandbox.tick({ seconds: s.tickSeconds, defaultSpeed: 10 });
          status = (await store.orders.findById(order.id))!.status;
        }
        if (status !== 'completed') stalls++;
        expect(status, `stalled at ${status} after ${maxTicks} ticks`).toBe('completed');
        const done = (await store.orders.findById(order.id))!;
        expect(done.proof?.distanceM).toBe(0);
      }),
      // No shrinking: a stalled run leaves its courier busy, so shrunk re-runs would fail for that instead.
      { numRuns: 60, endOnFailure: true },
    );
    expect(stalls).toBe(0);
    expect(fleet.every((c) => c.plate.startsWith(SIMULATED_PLATE_PREFIX))).toBe(true);
  }, 120_000);
});

describe('sandbox estimates follow the sandbox speed', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  beforeAll(async () => {
    t = await startOrdersApp({ env: { SANDBOX_SPEED: '10' } });
    m = await t.createMerchant();
  });
  afterAll(() => t.stop());

  const body = {
    pickup: { address: 'Av. Providencia 1234', coords: { lat: -33.4214, lng: -70.6033 } },
    dropoff: { address: 'Av. Vicuña Mackenna 4860', coords: { lat: -33.4986, lng: -70.6136 } },
    customer_name: 'Ana', customer_phone: '+56912345678', prep_time_mins: 30,
  };
  const minutesToDelivery = (created: { body: { estimated_delivery_time: string } }, at: number) => (Date.parse(created.body.estimated_delivery_time) - at) / 60_000;

  it('a test order at speed 100 is due a hundredth as far ahead as a live one; at speed 1 as far', async () => {
    await api(`${t.url}/api/v1/merchants/settings`, { key: m.testKey, body: { sandbox_speed: 100 } });
    const at = Date.now();
    const live = await api(`${t.url}/api/v1/orders`, { key: m.liveKey, body });
    const fast = await api(`${t.url}/api/v1/orders`, { key: m.testKey, body });
    expect([live.status, fast.status]).toEqual([201, 201]);
    const liveMins = minutesToDelivery(live, at);
    expect(liveMins).toBeGreaterThan(30); // the 30 min preparation, then the travel
    expect(minutesToDelivery(fast, at)).toBeLessThan(liveMins / 50);

    await api(`${t.url}/api/v1/merchants/settings`, { key: m.testKey, body: { sandbox_speed: 1 } });
    const slow = await api(`${t.url}/api/v1/orders`, { key: m.testKey, body });
    expect(minutesToDelivery(slow, at)).toBeGreaterThan(30);
  });

  it('without a merchant setting, the operator default (SANDBOX_SPEED=10) applies', async () => {
    await api(`${t.url}/api/v1/merchants/settings`, { key: m.testKey, body: { sandbox_speed: null } });
    const at = Date.now();
    const created = await api(`${t.url}/api/v1/orders`, { key: m.testKey, body });
    const mins = minutesToDelivery(created, at);
    expect(mins).toBeGreaterThan(3); // 30 min of preparation / 10
    expect(mins).toBeLessThan(10);
  });
});
