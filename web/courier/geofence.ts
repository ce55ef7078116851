import type { Stop } from './api.js';
import { distanceM } from './coalesce.js';

/** The server's default geofence (metres around a precise drop-off, or pickup for a return): the app sends no other. */
export const GEOFENCE_RADIUS_M = 20;

export type Verdict = 'inside' | 'outside' | 'unverified' | 'noFix';

/**
 * What the server's geofence on `stop` (the drop-off, or the pickup for a return) will say, from this
 * phone's newest fix, before the attempt: the same rule (a stop known only to its comuna is not
 * checked; otherwise within the radius).
 */
export function geofenceVerdict(stop: Pick<Stop, 'coords' | 'precision'>, here: { lat: number; lng: number } | null): { verdict: Verdict; distance: number | null } {
  if (stop.precision === 'locality') return { verdict: 'unverified', distance: null };
  if (!here) return { verdict: 'noFix', distance: null };
  const distance = Math.round(distanceM(here, stop.coords));
  return { verdict: distance <= GEOFENCE_RADIUS_M ? 'inside' : 'outside', distance };
}
