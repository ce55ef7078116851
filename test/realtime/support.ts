/**
 * Shared set-up for the realtime suites: an order whose customer data is distinctive (so tests can
 * prove it never reaches a public channel), live-socket clients that keep every raw frame, and a
 * polling wait for conditions that arrive asynchronously.
 */
import { WebSocket, type ClientOptions } from 'ws';
import type { LatLng } from '../../src/domain/types.js';
import type { TestApp } from '../helpers/app.js';
import { courierOnDuty, expectOk, merchantApi, PLACES, type CourierClient } from '../orders/support.js';

/** The customer of every realtime order: none of this may appear on the public tracking channels. */
export const CUSTOMER = {
  name: 'Valentina Fuentealba Ortúzar',
  phone: '+56 9 7654 3210',
  rut: '11.111.111-1',
  address: 'Avenida Apoquindo 4499',
  number: 'Depto 1502',
  instructions: 'Dejar con el conserje Sr. Hidalgo',
  notes: 'Timbre roto, llamar al llegar',
};

/** Fragments of the customer data as they could be written on the wire (raw, normalised, escaped). */
const CUSTOMER_FRAGMENTS = [
  'Valentina', 'Fuentealba', 'Ort\\u00fazar', 'Ortúzar',
  '76543210', '7654 3210', '+56976543210',
  '11.111.111', '11111111',
  'Apoquindo', '4499', 'Depto', '1502', 'Hidalgo', 'conserje', 'Timbre',
];

/** Customer-data fragments found in a public payload (expected: none). */
export function customerDataIn(text: string): string[] {
  // A digits-only fragment counts only as a whole number: a random tracking number such as
  // 6916415022 or a coordinate such as -33.41502 holds '1502' without saying anything about the customer.
  return CUSTOMER_FRAGMENTS.filter((fragment) => (/^\d+$/.test(fragment) ? new RegExp(`(?<!\\d)${fragment}(?!\\d)`).test(text) : text.includes(fragment)));
}

let pickupOffset = 0;

/**
 * A live order assigned to a fresh courier: each call uses its own pickup point (a few hundred
 * metres apart) with the courier standing on it, so dispatch cannot pick another test's courier.
 */
export async function assignedOrder(t: TestApp, merchantKey: string, options: { courierName?: string } = {}) {
  pickupOffset++;
  const pickup: LatLng = { lat: PLACES.providencia.lat - 0.003 * pickupOffset, lng: PLACES.providencia.lng };
  const courier = await courierOnDuty(t, { mode: 'live', at: pickup, ...(options.courierName && { name: options.courierName }) });
  const created = expectOk(
    await merchantApi(t, merchantKey).create({
      pickup: { address: 'Av. Providencia 1234', coords: pickup },
      dropoff: { address: `${CUSTOMER.address}, Las Condes`, coords: PLACES.lasCondes, number: CUSTOMER.number, instructions: CUSTOMER.instructions },
      customer_name: CUSTOMER.name,
      customer_phone: CUSTOMER.phone,
      customer_rut: CUSTOMER.rut,
      order_notes: CUSTOMER.notes,
      total_weight_kg: 1.5,
    }),
    201,
  ).body as { booking_id: string; tracking_number: string; order_number: string; status: string };
  const mine = expectOk(await courier.orders()).body.orders as Array<{ booking_id: string }>;
  if (created.status !== 'assigned' || !mine.some((o) => o.booking_id === created.booking_id)) {
    throw new Error(`order ${created.booking_id} was not assigned to the test's courier`);
  }
  return { order: created, courier, pickup };
}

/** A point between pickup and drop-off (fraction 0..1 of the way), far enough from both to trigger no arrival. */
export function along(from: LatLng, to: LatLng, fraction: number): LatLng {
  return { lat: from.lat + (to.lat - from.lat) * fraction, lng: from.lng + (to.lng - from.lng) * fraction };
}

/** Polls until `check` returns a truthy value; fails with `what` after the timeout. */
export async function until<T>(check: () => T | Promise<T>, what: string, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the parsed JSON freely
export type LiveMessage = { type: string; [key: string]: any };

export interface LiveClient {
  ws: WebSocket;
  /** Every text frame as received. */
  frames: string[];
  messages: LiveMessage[];
  /** Resolves with the close code and reason. */
  closed: Promise<{ code: number; reason: string }>;
  /** The first message (from index `from`) that matches. */
  waitFor(match: (m: LiveMessage) => boolean, what: string, from?: number): Promise<LiveMessage>;
  close(): Promise<void>;
}

export function liveUrl(baseUrl: string, reference: string): string {
  return `${baseUrl.replace(/^http/, 'ws')}/api/v1/tracking/${encodeURIComponent(reference)}/live`;
}

/** A tracking-socket client that records every frame. */
export function openLive(baseUrl: string, reference: string, options: ClientOptions = {}): LiveClient {
  const ws = new WebSocket(liveUrl(baseUrl, reference), options);
  const frames: string[] = [];
  const messages: LiveMessage[] = [];
  ws.on('message', (data) => {
    const text = String(data);
    frames.push(text);
    messages.push(JSON.parse(text) as LiveMessage);
  });
  ws.on('error', () => {});
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  return {
    ws,
    frames,
    messages,
    closed,
    waitFor: (match, what, from = 0) => until(() => messages.slice(from).find(match), what),
    async close() {
      if (ws.readyState !== WebSocket.CLOSED) ws.close();
      await closed;
    },
  };
}

export type { CourierClient };
