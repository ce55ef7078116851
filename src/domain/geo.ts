import type { DeliveryProof, LatLng, LocationPrecision, Stop } from './types.js';

const EARTH_RADIUS_M = 6_371_008.8;
const rad = (deg: number) => (deg * Math.PI) / 180;

/** Great-circle distance in metres (haversine). */
export function distanceMeters(a: LatLng, b: LatLng): number {
  const dLat = rad(b.lat - a.lat);
  const dLng = rad(b.lng - a.lng);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The area we deliver in: the Región Metropolitana with a margin (the offline gazetteer's region). */
export const SERVICE_AREA = { minLat: -34.35, maxLat: -32.9, minLng: -71.75, maxLng: -69.75 } as const;

export function isInServiceArea(p: LatLng): boolean {
  return p.lat >= SERVICE_AREA.minLat && p.lat <= SERVICE_AREA.maxLat && p.lng >= SERVICE_AREA.minLng && p.lng <= SERVICE_AREA.maxLng;
}

/** Where a position can be checked against the stop: the caller's coordinates or a house-number match. */
export function isPreciseStop(stop: { precision: LocationPrecision }): boolean {
  return stop.precision !== 'locality';
}

/**
 * Rows stored before precision was recorded: a stop given as coordinates says so in its label;
 * any other was placed by a geocoder whose match is unknown, so it counts as the comuna only.
 */
export function withStoredPrecision(stop: Stop): Stop {
  if (stop.precision) return stop;
  return Object.assign({}, stop, { precision: stop.label === 'coordinates' ? 'coordinates' : 'locality' } satisfies Pick<Stop, 'precision'>);
}

/** Proofs stored before geofence outcomes: every delivery then was checked unless bypassed. */
export function withStoredGeofence(proof: DeliveryProof | null): DeliveryProof | null {
  if (!proof || proof.geofence) return proof;
  return Object.assign({}, proof, { geofence: proof.bypass ? 'bypassed' : 'passed' } satisfies Pick<DeliveryProof, 'geofence'>);
}
