/**
 * Shared set-up for the order suites: an app with generous rate limits, couriers created through
 * the admin service and driven through their own REST API, and request bodies of both forms.
 */
import { expect } from 'vitest';
import type { LatLng, Mode, VehicleType } from '../../src/domain/types.js';
import { api, startTestApp, type TestApp } from '../helpers/app.js';

export { expectWireShape } from '../helpers/openapi.js';

/** Gazetteer points (comuna centroids) and exact coordinates used across the suites. */
export const PLACES = {
  providencia: { lat: -33.4214, lng: -70.6033 },
  lasCondes: { lat: -33.4154, lng: -70.5837 },
  nunoa: { lat: -33.4607, lng: -70.5927 },
  santiago: { lat: -33.4417, lng: -70.6541 },
} satisfies Record<string, LatLng>;

const METRES_PER_DEGREE_LAT = 111_195.08; // 2πR/360 with the domain's earth radius

/** A point `metres` due north of `p` (great-circle distance = metres). */
export function north(p: LatLng, metres: number): LatLng {
  return { lat: p.lat + metres / METRES_PER_DEGREE_LAT, lng: p.lng };
}

export const EVIDENCE = { photo_url: 'https://cdn.example.com/pod/photo.jpg', signature_url: 'https://cdn.example.com/pod/signature.png' };

/** Many requests per test: the default per-key limits would turn them into 429s. */
export function startOrdersApp(options: Parameters<typeof startTestApp>[0] = {}): Promise<TestApp> {
  return startTestApp({
    ...options,
    env: { RATE_LIMIT_PER_MIN: '1000000', COURIER_RATE_LIMIT_PER_MIN: '1000000', PUBLIC_RATE_LIMIT_PER_MIN: '1000000', ...options.env },
  });
}

/** Form A: pickup and drop-off Address objects with coordinates (no geocoding), a reference id, items. */
export function formA(overrides: Record<string, unknown> = {}) {
  return {
    pickup: { address: 'Av. Providencia 1234', coords: PLACES.providencia, number: '501', instructions: 'Retail counter' },
    dropoff: { address: 'Av. Apoquindo 3000, Las Condes', coords: PLACES.lasCondes, instructions: 'Conserjería' },
    customer_name: 'Camila Rojas',
    customer_phone: '+56912345678',
    reference_id: `REF-${Math.random().toString(36).slice(2, 10)}`,
    items: [{ name: 'Café molido 500 g', quantity: 2, weight_kg: 0.5 }],
    ...overrides,
  };
}

/** Form B: drop-off as address text, payment mode (prepaid: cash on delivery needs cod_amount), RUT, prep time and notes; pickup = the merchant address. */
export function formB(overrides: Record<string, unknown> = {}) {
  return {
    customer_name: 'Javier Muñoz',
    customer_phone: '+56 9 8765 4321',
    customer_rut: '12.345.678-5',
    dropoff_address: 'Av. Apoquindo 3000, Las Condes',
    payment_mode: 'prepaid',
    prep_time_mins: 15,
    order_notes: 'Tocar el timbre dos veces',
    ...overrides,
  };
}

export type Http = Awaited<ReturnType<typeof api>>;

/** The merchant's order endpoints with one API key. */
export function merchantApi(t: TestApp, key: string) {
  const at = (path: string) => `${t.url}/api/v1${path}`;
  const ref = (id: string) => encodeURIComponent(id);
  return {
    create: (body: unknown, idempotencyKey?: string) =>
      api(at('/orders'), { key, body, ...(idempotencyKey !== undefined && { headers: { 'idempotency-key': idempotencyKey } }) }),
    get: (id: string) => api(at(`/orders/${ref(id)}`), { key }),
    events: (id: string) => api(at(`/orders/${ref(id)}/events`), { key }),
    cancellation: (id: string) => api(at(`/orders/${ref(id)}/cancellation`), { key }),
    cancel: (id: string, body: unknown = {}) => api(at(`/orders/${ref(id)}/cancel`), { key, body }),
    deliver: (id: string, body: unknown) => api(at(`/orders/${ref(id)}/deliver`), { key, body }),
    list: (query = '') => api(at(`/orders${query}`), { key }),
    consolidate: (body: unknown) => api(at('/orders/consolidate'), { key, body }),
    batch: (id: string) => api(at(`/batches/${ref(id)}`), { key }),
  };
}

export type MerchantApi = ReturnType<typeof merchantApi>;

/** A courier (created by the admin service) and its own REST API. */
export interface CourierClient {
  id: string;
  token: string;
  mode: Mode;
  vehicle: VehicleType;
  me(): Promise<Http>;
  orders(): Promise<Http>;
  /** `shiftEndsAt`: sent as shift_ends_at when given (null included). */
  duty(onDuty: boolean, shiftEndsAt?: string | null): Promise<Http>;
  position(p: LatLng): Promise<Http>;
  status(orderId: string, status: string): Promise<Http>;
  release(orderId: string, reason?: string): Promise<Http>;
  deliver(orderId: string, body: unknown): Promise<Http>;
}

let courierCount = 0;

export async function createCourier(t: TestApp, options: { mode: Mode; vehicle?: VehicleType; name?: string }): Promise<CourierClient> {
  const vehicle = options.vehicle ?? 'motorcycle';
  const n = ++courierCount;
  const created = await t.app.container.services.admin.createCourier({
    input: { name: options.name ?? `Courier ${n}`, phone: `+5697${String(1_000_000 + n).slice(-7)}`, vehicle, plate: `TS${String(1000 + n).slice(-4)}`, mode: options.mode },
  });
  const call = (path: string, body?: unknown) =>
    api(`${t.url}/api/v1/couriers/me${path}`, { key: created.token, ...(body !== undefined && { body }) });
  const order = (id: string) => `/orders/${encodeURIComponent(id)}`;
  return {
    id: created.courierId,
    token: created.token,
    mode: options.mode,
    vehicle,
    me: () => call(''),
    orders: () => call('/orders'),
    duty: (onDuty, shiftEndsAt) => call('/duty', { on_duty: onDuty, ...(shiftEndsAt !== undefined && { shift_ends_at: shiftEndsAt }) }),
    position: (p) => call('/location', p),
    status: (id, status) => call(`${order(id)}/status`, { status }),
    release: (id, reason) => call(`${order(id)}/release`, reason === undefined ? {} : { reason }),
    deliver: (id, body) => call(`${order(id)}/deliver`, body),
  };
}

/** A courier on duty at `at` (in the geo index, ready to be dispatched). */
export async function courierOnDuty(t: TestApp, options: { mode: Mode; at: LatLng; vehicle?: VehicleType; name?: string }): Promise<CourierClient> {
  const courier = await createCourier(t, options);
  expectOk(await courier.duty(true));
  expectOk(await courier.position(options.at));
  return courier;
}

/** Takes couriers that are still available off duty, so they cannot take the next test's orders. */
export async function standDown(...couriers: CourierClient[]): Promise<void> {
  for (const courier of couriers) {
    const me = await courier.me();
    if (me.body.courier.status === 'available') expectOk(await courier.duty(false));
  }
}

export function expectOk(res: Http, status = 200): Http {
  expect(res.body, `HTTP ${res.status}`).toMatchObject({ success: true });
  expect(res.status).toBe(status);
  return res;
}

export function expectError(res: Http, status: number, code: string): Http {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.body.success).toBe(false);
  return res;
}

/** Statuses of the history, in sequence order, after checking the sequence runs 1..n. */
export function historyOf(events: Array<{ sequence: number; status: string }>): string[] {
  expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
  return events.map((e) => e.status);
}
