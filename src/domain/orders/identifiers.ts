import { randomInt } from 'node:crypto';
import ngeohash from 'ngeohash';
import type { LatLng } from '../types.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Short, human-readable, not guessable: `EXD-` + 12 Crockford base32 characters (60 random bits). */
export function generateTrackingNumber(): string {
  let out = '';
  for (let i = 0; i < 12; i++) out += CROCKFORD[randomInt(32)];
  return `EXD-${out.slice(0, 4)}-${out.slice(4, 8)}-${out.slice(8)}`;
}

/** Random (never sequential) 10-digit order number, so the public tracking endpoint cannot be walked. */
export function generateOrderNumber(): string {
  return String(randomInt(1_000_000_000, 10_000_000_000));
}

export const GEOHASH_PRECISION = 9;

export function geohashOf(point: LatLng): string {
  return ngeohash.encode(point.lat, point.lng, GEOHASH_PRECISION);
}

export const GEOHASH_ZONE_PATTERN = /^[0-9b-hjkmnp-z]{1,12}$/;
