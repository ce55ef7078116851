import { describe, expect, it } from 'vitest';
import { distanceMeters, SERVICE_AREA } from '../../src/domain/geo.js';
import { VEHICLE_TYPES, type LatLng, type Mode, type VehicleType } from '../../src/domain/types.js';
import type { CourierGeoIndex, NearbyCourier } from '../../src/ports/geo-index.js';

/** Redis stores positions as 52-bit geohashes (~0.6 m); distances may differ by that much. */
const TOLERANCE_M = 1;

// Real places in Santiago; orders are placed from Las Condes (Metro Escuela Militar).
const LAS_CONDES: LatLng = { lat: -33.4137, lng: -70.5836 };
const PROVIDENCIA: LatLng = { lat: -33.4175, lng: -70.6067 }; // Costanera Center, ~2.2 km
const NUNOA: LatLng = { lat: -33.4565, lng: -70.5978 }; // Plaza Ñuñoa, ~4.9 km
const CENTRO: LatLng = { lat: -33.4378, lng: -70.6504 }; // Plaza de Armas, ~6.8 km
const MAIPU: LatLng = { lat: -33.5107, lng: -70.7573 }; // Plaza de Maipú, ~19.4 km

/** The behaviour every CourierGeoIndex adapter must show; make returns a fresh, empty index per case. */
export function describeGeoIndexContract(name: string, make: () => Promise<CourierGeoIndex>): void {
  describe(`CourierGeoIndex contract: ${name}`, () => {
    const place = (index: CourierGeoIndex, courierId: string, location: LatLng, vehicle: VehicleType = 'car', mode: Mode = 'live') =>
      index.upsert({ courierId, mode, vehicle, location });
    const all = { mode: 'live' as Mode, vehicles: [...VEHICLE_TYPES], point: LAS_CONDES, limit: 10 };
    const ids = (found: NearbyCourier[]) => found.map((c) => c.courierId);

    it('an empty index finds nobody', async () => {
      const index = await make();
      expect(await index.nearest(all)).toStrictEqual([]);
      expect(await index.nearest({ ...all, mode: 'test', maxDistanceM: 1000 })).toStrictEqual([]);
    });

    it('returns couriers nearest first, with great-circle distances in metres', async () => {
      const index = await make();
      await place(index, 'maipu', MAIPU);
      await place(index, 'providencia', PROVIDENCIA);
      await place(index, 'centro', CENTRO);
      await place(index, 'nunoa', NUNOA);

      const found = await index.nearest(all);
      expect(ids(found)).toStrictEqual(['providencia', 'nunoa', 'centro', 'maipu']);
      const places = { providencia: PROVIDENCIA, nunoa: NUNOA, centro: CENTRO, maipu: MAIPU } as Record<string, LatLng>;
      for (const c of found) expect(Math.abs(c.distanceM - distanceMeters(LAS_CONDES, places[c.courierId]!))).toBeLessThan(TOLERANCE_M);
      expect(found[0]!.distanceM).toBeGreaterThan(2100);
      expect(found[0]!.distanceM).toBeLessThan(2300);
    });

    it('returns only the requested vehicle types', async () => {
      const index = await make();
      await place(index, 'bike-providencia', PROVIDENCIA, 'bike');
      await place(index, 'car-nunoa', NUNOA, 'car');
      await place(index, 'van-maipu', MAIPU, 'van');

      expect(ids(await index.nearest({ ...all, vehicles: ['car', 'van'] }))).toStrictEqual(['car-nunoa', 'van-maipu']);
      expect(ids(await index.nearest({ ...all, vehicles: ['bike'] }))).toStrictEqual(['bike-providencia']);
      expect(await index.nearest({ ...all, vehicles: ['motorcycle'] })).toStrictEqual([]);
      expect(await index.nearest({ ...all, vehicles: [] })).toStrictEqual([]);
    });

    it('keeps modes apart: a test courier is never returned for live, nor the reverse', async () => {
      const index = await make();
      await place(index, 'sandbox-courier', PROVIDENCIA, 'car', 'test');
      await place(index, 'live-courier', MAIPU, 'car', 'live');

      expect(ids(await index.nearest({ ...all, mode: 'live' }))).toStrictEqual(['live-courier']);
      expect(ids(await index.nearest({ ...all, mode: 'test' }))).toStrictEqual(['sandbox-courier']);

      // The same id in both modes is two independent entries.
      await place(index, 'twin', CENTRO, 'car', 'test');
      await place(index, 'twin', NUNOA, 'car', 'live');
      await index.remove({ courierId: 'twin', mode: 'test', vehicle: 'car' });
      expect(ids(await index.nearest({ ...all, mode: 'live' }))).toStrictEqual(['twin', 'live-courier']);
      expect(ids(await index.nearest({ ...all, mode: 'test' }))).toStrictEqual(['sandbox-courier']);
    });

    it('remove takes a courier out; removing an unknown courier is a no-op', async () => {
      const index = await make();
      await place(index, 'a', PROVIDENCIA);
      await place(index, 'b', NUNOA);
      await index.remove({ courierId: 'a', mode: 'live', vehicle: 'car' });
      await index.remove({ courierId: 'never-there', mode: 'live', vehicle: 'car' });

      expect(ids(await index.nearest(all))).toStrictEqual(['b']);
      await index.remove({ courierId: 'b', mode: 'live', vehicle: 'car' });
      expect(await index.nearest(all)).toStrictEqual([]);
    });

    it('an upsert moves the courier: one entry, at the new place', async () => {
      const index = await make();
      await place(index, 'mover', MAIPU);
      await place(index, 'other', NUNOA);
      expect(ids(await index.nearest(all))).toStrictEqual(['other', 'mover']);

      await place(index, 'mover', PROVIDENCIA);
      const found = await index.nearest(all);
      expect(ids(found)).toStrictEqual(['mover', 'other']);
      expect(Math.abs(found[0]!.distanceM - distanceMeters(LAS_CONDES, PROVIDENCIA))).toBeLessThan(TOLERANCE_M);
    });

    it('limit returns the k nearest', async () => {
      const index = await make();
      await place(index, 'maipu', MAIPU);
      await place(index, 'centro', CENTRO);
      await place(index, 'nunoa', NUNOA);
      await place(index, 'providencia', PROVIDENCIA);

      expect(ids(await index.nearest({ ...all, limit: 2 }))).toStrictEqual(['providencia', 'nunoa']);
      expect(ids(await index.nearest({ ...all, limit: 1 }))).toStrictEqual(['providencia']);
      expect(await index.nearest({ ...all, limit: 0 })).toStrictEqual([]);
    });

    it('maxDistanceM leaves out couriers farther away', async () => {
      const index = await make();
      await place(index, 'providencia', PROVIDENCIA);
      await place(index, 'nunoa', NUNOA);
      await place(index, 'maipu', MAIPU);

      expect(ids(await index.nearest({ ...all, maxDistanceM: 10_000 }))).toStrictEqual(['providencia', 'nunoa']);
      expect(ids(await index.nearest({ ...all, maxDistanceM: 3_000 }))).toStrictEqual(['providencia']);
      expect(await index.nearest({ ...all, maxDistanceM: 1_000 })).toStrictEqual([]);
      expect(ids(await index.nearest({ ...all, maxDistanceM: 10_000, limit: 1 }))).toStrictEqual(['providencia']);
    });

    it('1,000 couriers across the Región Metropolitana: the k nearest match a brute-force sort', async () => {
      const index = await make();
      const random = seededRandom(20240611);
      const randomPoint = (): LatLng => ({
        lat: SERVICE_AREA.minLat + random() * (SERVICE_AREA.maxLat - SERVICE_AREA.minLat),
        lng: SERVICE_AREA.minLng + random() * (SERVICE_AREA.maxLng - SERVICE_AREA.minLng),
      });
      const couriers = Array.from({ length: 1000 }, (_, i) => ({
        courierId: `courier-${i}`,
        mode: (random() < 0.2 ? 'test' : 'live') as Mode,
        vehicle: VEHICLE_TYPES[Math.floor(random() * VEHICLE_TYPES.length)]!,
        location: randomPoint(),
      }));
      for (const c of couriers) await index.upsert(c);

      const queries: Array<{ mode: Mode; vehicles: VehicleType[]; limit: number; maxDistanceM?: number }> = [
        { mode: 'live', vehicles: [...VEHICLE_TYPES], limit: 25 },
        { mode: 'live', vehicles: ['car', 'van'], limit: 10 },
        { mode: 'test', vehicles: ['motorcycle'], limit: 5 },
        { mode: 'live', vehicles: ['bike', 'motorcycle'], limit: 50, maxDistanceM: 20_000 },
        { mode: 'test', vehicles: [...VEHICLE_TYPES], limit: 300 },
      ];
      for (let q = 0; q < 20; q++) {
        const query = { ...queries[q % queries.length]!, point: q === 0 ? LAS_CONDES : randomPoint() };
        const expected = couriers
          .filter((c) => c.mode === query.mode && query.vehicles.includes(c.vehicle))
          .map((c) => ({ courierId: c.courierId, distanceM: distanceMeters(query.point, c.location) }))
          .filter((c) => query.maxDistanceM === undefined || c.distanceM <= query.maxDistanceM)
          .sort((a, b) => a.distanceM - b.distanceM)
          .slice(0, query.limit);
        const found = await index.nearest(query);
        expectSameNearest(found, expected, couriers, query.point);
      }
    });
  });
}

/**
 * The same couriers, nearest first, allowing for geohash rounding: distances within the
 * tolerance, and where two distances are that close the two couriers may swap (also across the
 * k-th place), so membership is checked against the k-th distance rather than by position.
 */
function expectSameNearest(
  found: NearbyCourier[],
  expected: NearbyCourier[],
  couriers: Array<{ courierId: string; location: LatLng }>,
  point: LatLng,
): void {
  const where = new Map(couriers.map((c) => [c.courierId, c.location]));
  expect(found).toHaveLength(expected.length);
  expect(new Set(found.map((c) => c.courierId)).size).toBe(found.length);
  for (let i = 0; i < found.length; i++) {
    const c = found[i]!;
    expect(Math.abs(c.distanceM - distanceMeters(point, where.get(c.courierId)!))).toBeLessThan(TOLERANCE_M);
    expect(Math.abs(c.distanceM - expected[i]!.distanceM)).toBeLessThan(TOLERANCE_M);
    if (i > 0) expect(c.distanceM).toBeGreaterThanOrEqual(found[i - 1]!.distanceM);
  }
  if (expected.length === 0) return;
  const kth = expected.at(-1)!.distanceM;
  const foundIds = new Set(found.map((c) => c.courierId));
  for (const e of expected) if (e.distanceM < kth - TOLERANCE_M) expect(foundIds).toContain(e.courierId);
  for (const c of found) expect(distanceMeters(point, where.get(c.courierId)!)).toBeLessThan(kth + TOLERANCE_M);
}

/** mulberry32: the same 1,000 couriers on every run, so a failure can be reproduced. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
