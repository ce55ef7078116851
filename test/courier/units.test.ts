import { describe, expect, it } from 'vitest';
import { COALESCE, coalesceSettings, createCoalescer, distanceM, fixOf, type Fix } from '../../web/courier/coalesce.js';
import { fitWithin } from '../../web/courier/proof.js';
import { GEOFENCE_RADIUS_M, geofenceVerdict } from '../../web/courier/geofence.js';

const METRES_PER_DEGREE_LAT = 111_195.08;
const start = { lat: -33.4214, lng: -70.6033 };
const fixAt = (seconds: number, metresNorth: number): Fix => ({
  lat: start.lat + metresNorth / METRES_PER_DEGREE_LAT, lng: start.lng, recorded_at: new Date(Date.UTC(2026, 10, 28, 12) + seconds * 1000).toISOString(),
});

describe('courier app: coalescing positions', () => {
  it('keeps the first fix, then one every 15 s standing still or one per 50 m moving', () => {
    const keep = createCoalescer();
    const still = Array.from({ length: 61 }, (_, s) => fixAt(s, 0)).filter(keep);
    expect(still.map((f) => f.recorded_at.slice(17, 19))).toEqual(['00', '15', '30', '45', '00']);
    const moving = createCoalescer();
    // 10 m/s (36 km/h): one fix per 5 s (50 m) rather than per 15 s.
    expect(Array.from({ length: 31 }, (_, s) => fixAt(s, s * 10)).filter(moving)).toHaveLength(7);
  });

  it('drops a fix not newer than the last kept one, and measures great-circle metres', () => {
    const keep = createCoalescer();
    expect(keep(fixAt(10, 0))).toBe(true);
    expect(keep(fixAt(5, 500))).toBe(false);
    expect(keep(fixAt(10, 500))).toBe(false);
    expect(distanceM(fixAt(0, 0), fixAt(0, 1000))).toBeCloseTo(1000, 0);
  });

  it('reads a browser position in the wire units and bounds, and its settings from the shell', () => {
    const fix = fixOf({ coords: { latitude: -33.4, longitude: -70.6, accuracy: 8.4, heading: null, speed: 5 }, timestamp: Date.UTC(2026, 0, 1) });
    expect(fix).toEqual({ lat: -33.4, lng: -70.6, accuracy_m: 8, speed_kmh: 18, recorded_at: '2026-01-01T00:00:00.000Z' });
    expect(coalesceSettings(null)).toEqual(COALESCE);
    expect(coalesceSettings({ dataset: { positionEveryS: '30', positionMetres: 'x' } } as unknown as HTMLElement)).toEqual({ everyMs: 30_000, metres: COALESCE.metres });
  });
});

describe('courier app: proof on the device', () => {
  it('fits a photo within 1280 px on its longest side, never enlarging it', () => {
    expect(fitWithin(4032, 3024, 1280)).toEqual({ width: 1280, height: 960 });
    expect(fitWithin(3000, 4000, 1280)).toEqual({ width: 960, height: 1280 });
    expect(fitWithin(800, 600, 1280)).toEqual({ width: 800, height: 600 });
  });

  it('tells the geofence verdict before the attempt, as the server will judge it', () => {
    const dropoff = { address: 'x', number: null, instructions: null, coords: start, precision: 'coordinates' as const };
    expect(geofenceVerdict(dropoff, null).verdict).toBe('noFix');
    expect(geofenceVerdict(dropoff, fixAt(0, 12))).toEqual({ verdict: 'inside', distance: 12 });
    expect(geofenceVerdict(dropoff, fixAt(0, GEOFENCE_RADIUS_M + 30))).toEqual({ verdict: 'outside', distance: 50 });
    expect(geofenceVerdict({ ...dropoff, precision: 'locality' }, fixAt(0, 900)).verdict).toBe('unverified');
  });
});
