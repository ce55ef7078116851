import ngeohash from 'ngeohash';
import type { LatLng, Order } from '../types.js';

/**
 * The plain public tracking page of an order, without its capability (what a customer reaches by
 * typing the number); the link given out is TrackingLinks.urlOf. Order and tracking numbers come
 * from the IdSource port.
 */
export function trackingUrlOf(order: Pick<Order, 'trackingNumber'>, publicBaseUrl: string): string {
  return `${publicBaseUrl}/track/${encodeURIComponent(order.trackingNumber)}`;
}

export const GEOHASH_PRECISION = 9;

export function geohashOf(point: LatLng): string {
  return ngeohash.encode(point.lat, point.lng, GEOHASH_PRECISION);
}

export const GEOHASH_ZONE_PATTERN = /^[0-9b-hjkmnp-z]{1,12}$/;
