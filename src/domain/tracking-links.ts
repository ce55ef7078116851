import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Order, OrderStop } from './types.js';

/**
 * Capability tracking links (issue #28 item 2). A link is `/track/{tracking number}?k={capability}`;
 * the capability is an HMAC-SHA256 of the tracking number under a key derived from the master key,
 * cut to 22 base64url characters (132 bits): nothing new is stored, nobody without the master key
 * can make one, and checking one needs no store lookup — so a valid or invalid capability says
 * nothing about whether the number exists. Rotating the master key would change every link.
 */
export const CAPABILITY_PATTERN = /^[A-Za-z0-9_-]{22}$/;
const CAPABILITY_CHARS = 22;
const KEY_LABEL = 'express-delivery/tracking-link/v1';

export type TrackingLinks = ReturnType<typeof createTrackingLinks>;

export function createTrackingLinks(deps: { masterKey: Buffer; publicBaseUrl: () => string }) {
  const key = createHmac('sha256', deps.masterKey).update(KEY_LABEL).digest();

  /** The capability of a tracking number (upper-case, as issued). */
  function capabilityOf(trackingNumber: string): string {
    return createHmac('sha256', key).update(trackingNumber.trim().toUpperCase()).digest('base64url').slice(0, CAPABILITY_CHARS);
  }

  /** The tracking number the capability opens, or null: a wrong, malformed or missing capability opens nothing. */
  function openedBy(options: { reference: string; capability: unknown }): string | null {
    const { capability } = options;
    if (typeof capability !== 'string' || !CAPABILITY_PATTERN.test(capability)) return null;
    const trackingNumber = options.reference.trim().toUpperCase();
    const expected = Buffer.from(capabilityOf(trackingNumber));
    return timingSafeEqual(expected, Buffer.from(capability)) ? trackingNumber : null;
  }

  /** The customer's tracking link of an order (REST and GraphQL `tracking_url`, webhooks). */
  function urlOf(order: Pick<Order, 'trackingNumber'>): string {
    return `${deps.publicBaseUrl()}/track/${encodeURIComponent(order.trackingNumber)}?k=${capabilityOf(order.trackingNumber)}`;
  }

  /**
   * A multi-stop order's stop link (issue #30): `/track/stops/{booking id}/{stop id}?k=` with the HMAC
   * of both ids under the same key, labelled apart from the order's. It names neither the tracking
   * number nor any other stop, so the recipient of one stop cannot reach the others.
   */
  function stopCapabilityOf(orderId: string, stopId: string): string {
    return createHmac('sha256', key).update(`stop:${orderId}/${stopId}`).digest('base64url').slice(0, CAPABILITY_CHARS);
  }

  /** Whether the capability opens this stop of this order (the ids as given; checked without a store lookup). */
  function opensStop(options: { orderId: string; stopId: string; capability: unknown }): boolean {
    const { capability } = options;
    if (typeof capability !== 'string' || !CAPABILITY_PATTERN.test(capability)) return false;
    return timingSafeEqual(Buffer.from(stopCapabilityOf(options.orderId, options.stopId)), Buffer.from(capability));
  }

  function stopUrlOf(order: Pick<Order, 'id'>, stop: Pick<OrderStop, 'id'>): string {
    return `${deps.publicBaseUrl()}/track/stops/${encodeURIComponent(order.id)}/${encodeURIComponent(stop.id)}?k=${stopCapabilityOf(order.id, stop.id)}`;
  }

  return { capabilityOf, openedBy, urlOf, opensStop, stopUrlOf };
}
