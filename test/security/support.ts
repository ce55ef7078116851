import { randomUUID } from 'node:crypto';
/**
 * Shared set-up for the OWASP API Top 10 suites: an app whose webhook worker is off (deliveries
 * stay in the log, nothing leaves the machine), a merchant with one resource of every kind in both
 * modes, and the documented operations (from the OpenAPI document) grouped by who may call them.
 */
import ngeohash from 'ngeohash';
import type { Mode } from '../../src/domain/types.js';
import { api, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { courierOnDuty, expectOk, formA, merchantApi, PLACES, type CourierClient } from '../orders/support.js';
import { documentedOperations, type Operation } from '../fuzz/support.js';

export { documentedOperations, type Operation };

/** Rate limits out of the way (the limits have their own suite), no webhook worker. */
export function startSecurityApp(env: Record<string, string> = {}, options: Omit<Parameters<typeof startTestApp>[0], 'env'> = {}): Promise<TestApp> {
  return startTestApp({
    ...options,
    env: {
      RATE_LIMIT_PER_MIN: '1000000',
      COURIER_RATE_LIMIT_PER_MIN: '1000000',
      PUBLIC_RATE_LIMIT_PER_MIN: '1000000',
      WEBHOOK_WORKER: 'false',
      // The suites act as many client addresses through X-Forwarded-For from the loopback peer.
      TRUST_PROXY: '127.0.0.1,::1',
      WEBHOOK_SANDBOX_ALLOW_PRIVATE: 'true',
      ...env,
    },
  });
}

/** One resource of every kind a path can name, for one merchant in one mode. */
export interface TenantResources {
  mode: Mode;
  key: string;
  /** An order assigned to `courier` (courier paths act on it). */
  order: { booking_id: string; reference_id: string; tracking_number: string; order_number: string };
  courier: CourierClient;
  batchId: string;
  endpointId: string;
  deliveryId: string;
}

const keyOf = (m: MerchantCredentials, mode: Mode) => (mode === 'live' ? m.liveKey : m.testKey);

let seeded = 0;

/**
 * Creates, for `merchant` in `mode`: a courier with an order assigned to it, two more orders
 * consolidated into a batch, a webhook endpoint and (from the orders' events) a delivery.
 */
export async function seedTenant(t: TestApp, merchant: MerchantCredentials, mode: Mode): Promise<TenantResources> {
  const key = keyOf(merchant, mode);
  const orders = merchantApi(t, key);
  // Each tenant gets its own area (~2 km apart), so no courier or batch crosses tenants.
  seeded++;
  const pickup = { lat: PLACES.santiago.lat - 0.02 * seeded, lng: PLACES.santiago.lng - 0.02 * seeded };
  const courier = await courierOnDuty(t, { mode, at: pickup, name: `Security Courier ${seeded}` });
  const endpoint = expectOk(
    await api(`${t.url}/api/v1/webhooks`, { key, body: { url: mode === 'live' ? 'https://93.184.216.34/webhooks' : 'http://127.0.0.1:9/webhooks' } }),
    201,
  ).body.endpoint;
  const created = expectOk(await orders.create(formA({ pickup: { address: 'Av. Providencia 1234', coords: pickup }, reference_id: `SEC-${mode}-${seeded}` })), 201).body;
  const order = expectOk(await orders.get(created.booking_id)).body;
  if (order.status !== 'assigned') throw new Error(`seed order is ${order.status}, not assigned`);
  // Two more orders in a cell of their own, consolidated into a batch.
  const far = { lat: pickup.lat - 0.01, lng: pickup.lng + 0.05 };
  for (let i = 0; i < 2; i++) expectOk(await orders.create(formA({ pickup: { address: 'Alameda 100', coords: far } })), 201);
  const batch = expectOk(await orders.consolidate({ geohash_zone: ngeohash.encode(far.lat, far.lng, 6), target_car_type: 'car' })).body;
  if (!batch.batch_ids?.length) throw new Error('no batch was created');
  const deliveries = expectOk(await api(`${t.url}/api/v1/webhooks/deliveries?endpoint_id=${endpoint.id}`, { key })).body.deliveries;
  if (!deliveries.length) throw new Error('no webhook delivery was logged');
  return {
    mode,
    key,
    order: { booking_id: order.booking_id, reference_id: order.reference_id, tracking_number: order.tracking_number, order_number: order.order_number },
    courier,
    batchId: batch.batch_ids[0],
    endpointId: endpoint.id,
    deliveryId: deliveries[0].id,
  };
}

/** Every identifier of a tenant's order. */
export function orderIdentifiers(r: TenantResources): string[] {
  return [r.order.booking_id, r.order.reference_id, r.order.tracking_number, r.order.order_number];
}

/** The operations whose path names a resource (has a path parameter). */
export function idTakingOperations(): Operation[] {
  return documentedOperations().filter((op) => op.pathParams.length > 0);
}

/** The path of an operation with its parameter filled in. */
export function pathWith(op: Operation, id: string): string {
  return `/api/v1${op.path.replace(/\{\w+\}/, encodeURIComponent(id))}`;
}

/** A credential-free request for an operation: its documented example as the body. */
export async function call(t: TestApp, op: Operation, path: string, headers: Record<string, string> = {}) {
  const hasBody = op.method !== 'GET' && op.method !== 'DELETE';
  // A required header (a tip's Idempotency-Key) gets a fresh value, so the call reaches the lookup.
  const required = Object.fromEntries(op.requiredHeaders.map((name) => [name, `security-${randomUUID()}`]));
  return api(`${t.url}${path}`, {
    method: op.method,
    headers: Object.assign(required, headers),
    ...(hasBody && { body: op.body?.example ?? {} }),
  });
}

/** Strings that reveal a credential: the whole and its random part (a tail is a leak too). */
export function credentialFragments(secret: string): string[] {
  const random = secret.replace(/^(ak_(live|test)_|ct_|whsec_)/, '');
  return [secret, random, random.slice(-16)];
}
