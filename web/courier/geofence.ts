import type { CourierOrder } from './api.js';
import { distanceM } from './coalesce.js';

/** The server's default geofence (metres around a precise drop-off): the app sends no other. */
export const GEOFENCE_RADIUS_M = 20;

export type Verdict = 'inside' | 'outside' | 'unverified' | 'noFix';

/**
 * What the server's geofence will say, from this phone's newest fix, before the attempt: the same
 * rule (a drop-off known only to its comuna is not checked; otherwise within the radius).
 */
export function geofenceVerdict(order: Pick<CourierOrder, 'dropoff'>, here: { lat: number; lng: number } | null): { verdict: Verdict; distance: number | null } {
  if (order.dropoff.precision === 'locality') return { verdict: 'unverified', distance: null };
  if (!here) return { verdict: 'noFix', distance: null };
  const distance = Math.round(distanceM(here, order.dropoff.coords));
  return { verdict: distance <= GEOFENCE_RADIUS_M ? 'inside' : 'outside', distance };
}
