import { distanceMeters } from './geo.js';
import type { LatLng, VehicleType } from './types.js';

/**
 * Which courier positions are believable (issue #39 item 5.3: a position jumped 28–44 km in 0.1 s
 * and was used for arrivals and dispatch). A fix is compared with the last accepted one: the
 * distance, less a GPS-noise allowance, over the time between the two fixes (their own times: the
 * phone's `recorded_at`, else when the report arrived) must not exceed the vehicle's plausible
 * top speed. The first fix, and any fix after `resetAfterMs` without one, is always believed.
 */
export interface PositionPlausibility {
  /** km/h per vehicle type. */
  maxSpeedKmh: Record<VehicleType, number>;
  /** Metres of jitter a fix may show without moving (two fixes a second apart may be this far apart). */
  noiseM: number;
  /** After this long without an accepted fix any position is believed (the phone was off; the courier moved). */
  resetAfterMs: number;
}

export const DEFAULT_MAX_SPEED_KMH: Record<VehicleType, number> = { bike: 45, motorcycle: 120, car: 150, van: 130 };

export function isPlausibleMove(options: {
  rule: PositionPlausibility;
  vehicle: VehicleType;
  /** The last accepted fix and its time; null: none yet (the first fix). */
  from: { location: LatLng; at: string } | null;
  to: { location: LatLng; at: string };
}): boolean {
  const { rule, from, to } = options;
  if (!from) return true;
  const elapsedMs = Date.parse(to.at) - Date.parse(from.at);
  if (elapsedMs >= rule.resetAfterMs) return true;
  const moved = distanceMeters(from.location, to.location) - rule.noiseM;
  if (moved <= 0) return true;
  if (elapsedMs <= 0) return false;
  return moved / (elapsedMs / 1000) <= rule.maxSpeedKmh[options.vehicle] / 3.6;
}

/** `POSITION_MAX_SPEED_KMH`: `off`, or `vehicle:km/h` pairs (`bike:45,motorcycle:120`), the unnamed types at their defaults. */
export function parseMaxSpeeds(text: string): Record<VehicleType, number> | null {
  if (text.trim().toLowerCase() === 'off') return null;
  const speeds = Object.assign({}, DEFAULT_MAX_SPEED_KMH);
  for (const pair of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [vehicle, kmh] = pair.split(':').map((p) => p.trim());
    if (!vehicle || !(vehicle in speeds) || !kmh || !/^\d+(\.\d+)?$/.test(kmh) || Number(kmh) <= 0) {
      throw new Error(`POSITION_MAX_SPEED_KMH: "${pair}" is not vehicle:km/h (bike, motorcycle, car, van), and the whole value is not "off"`);
    }
    speeds[vehicle as VehicleType] = Number(kmh);
  }
  return speeds;
}
