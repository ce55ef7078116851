import { randomBytes } from 'node:crypto';
import ngeohash from 'ngeohash';
import { monotonicFactory } from 'ulid';
import { GEOHASH_PRECISION } from '../../src/domain/orders/identifiers.js';
import type {
  ApiKeyRecord,
  Batch,
  Courier,
  LedgerEntry,
  Merchant,
  MerchantSecretRecord,
  Mode,
  Order,
  OrderEvent,
  OrderStatus,
  Stop,
} from '../../src/domain/types.js';
import { createUlidSource } from '../../src/ports/ids.js';
import type { IdempotencyRecord, NewMerchantBundle, NewOrderEvent, Store } from '../../src/ports/store.js';

// Fixtures shared by the store contract suites: complete, realistic records with unique ids,
// hashes and numbers per call.

/*
 * Times are ISO-8601 strings from a fixed epoch in the future: a real MongoDB's TTL monitor
 * removes idempotency keys whose expiry is in the past, which would race the cases.
 */
const EPOCH = Date.UTC(2099, 0, 1, 12, 0, 0);

/** Seconds after the fixed epoch, as the ISO-8601 string the domain stores. */
export const at = (seconds: number) => new Date(EPOCH + seconds * 1000).toISOString();
export const DAY = 24 * 60 * 60;

let seq = 0;
export const nextId = (prefix: string) => `${prefix}_${String(++seq).padStart(6, '0')}_${randomBytes(3).toString('hex')}`;
export const hashHex = () => randomBytes(32).toString('hex');
/** Time-ordered ids, like the domain's: `${prefix}_${ulid(Date.parse(createdAt))}`. */
export const ulid = monotonicFactory();
const randomIds = createUlidSource();

// ---- merchants ----

export function keyFor(merchantId: string, mode: Mode, createdAt: string): ApiKeyRecord {
  return { id: nextId('key'), merchantId, mode, hash: hashHex(), prefix: `ak_${mode}_Ab12`, status: 'active', createdAt, revokedAt: null };
}

export function secretFor(merchantId: string, createdAt: string): MerchantSecretRecord {
  return { id: nextId('sec'), merchantId, ciphertext: randomBytes(24).toString('base64'), createdAt, expiresAt: null, signingKey: randomBytes(24).toString('base64') };
}

/** A merchant with a live and a test key and its signing secret, as merchants.create takes them. */
export function merchantBundle(overrides: Partial<Merchant> = {}): NewMerchantBundle {
  const merchant: Merchant = {
    id: nextId('m'),
    name: 'Farmacia Central',
    status: 'active',
    address: 'Av. Providencia 1234, Providencia',
    integrations: { plugin: 'pending_approval', storefront: 'approved', erp: 'rejected' },
    settings: { prepTimeMins: 5, storefrontDomain: null, integrationPlatform: null, webhookPayloadShape: 'event', webhookCourierLocation: false, sandboxSpeed: null },
    rateLimitPerMin: null,
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
  return {
    merchant,
    keys: [keyFor(merchant.id, 'live', at(1)), keyFor(merchant.id, 'test', at(2))],
    secret: secretFor(merchant.id, at(0)),
  };
}

/** Stores a new merchant (orders, endpoints and telemetry rows reference one) and returns its id. */
export async function storeMerchant(store: Store): Promise<string> {
  const b = merchantBundle();
  await store.merchants.create(b);
  return b.merchant.id;
}

// ---- couriers ----

export function courier(overrides: Partial<Courier> = {}): Courier {
  return {
    id: nextId('c'),
    mode: 'live',
    name: 'Pedro Soto',
    phone: '+56987654321',
    vehicle: 'motorcycle',
    plate: 'AB1234',
    tokenHash: hashHex(),
    accountStatus: 'active',
    status: 'off_duty',
    job: null,
    shiftEndsAt: null,
    location: { lat: -33.4372, lng: -70.6506 },
    locationAt: at(0),
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

// ---- orders ----

/** A stop at the centre of a geohash cell (the geohash stored is the given one). */
function stop(geohash: string, fields: Pick<Stop, 'address' | 'number' | 'instructions' | 'label' | 'precision'>): Stop {
  const { latitude, longitude } = ngeohash.decode(geohash);
  return { lat: Number(latitude.toFixed(6)), lng: Number(longitude.toFixed(6)), geohash, ...fields };
}

type OrderOverrides = Partial<Order> & { pickupGeohash?: string };

/** A complete order as the domain stores it; booking ids follow creation time (ULID). */
export function order(overrides: OrderOverrides & { merchantId: string }): Order {
  const { pickupGeohash, ...fields } = overrides;
  const createdAt = fields.createdAt ?? at(0);
  const pickup = stop(pickupGeohash ?? '66jcc4fm8', {
    address: 'Av. Providencia 1234, Providencia',
    number: '1234',
    instructions: 'Retirar en mesón de despacho',
    label: 'Providencia',
    precision: 'street',
  });
  const dropoff = stop(ngeohash.encode(-33.4569, -70.5977, GEOHASH_PRECISION), {
    address: 'Irarrázaval 3400, Ñuñoa',
    number: '3400',
    instructions: 'Depto 502, timbre 502',
    label: 'Ñuñoa',
    precision: 'locality',
  });
  return {
    id: `bk_${ulid(Date.parse(createdAt))}`,
    mode: 'live',
    orderNumber: randomIds.orderNumber(),
    trackingNumber: randomIds.trackingNumber(),
    referenceId: null,
    ecommerceOrderId: null,
    status: 'new',
    pickup,
    dropoff,
    customer: { name: 'Camila Rojas', phone: '+56912345678', rut: '12345678-5', userId: null, isRegisteredUser: false },
    paymentMode: 'prepaid',
    items: [
      { name: 'Paracetamol 500 mg x 16', quantity: 2, weight_kg: 0.1 },
      { name: 'Alcohol gel 1 L', quantity: 1, weight_kg: 1.05, sku: 'AG-1000' },
    ],
    notes: 'Llamar al llegar',
    weightKg: 1.25,
    vehicleType: 'motorcycle',
    price: 3490,
    currency: 'CLP',
    prepTimeMins: 10,
    estimatedPickupAt: new Date(Date.parse(createdAt) + 10 * 60_000).toISOString(),
    estimatedDeliveryAt: new Date(Date.parse(createdAt) + 32 * 60_000).toISOString(),
    courierId: null,
    batchId: null,
    proof: null,
    cancellation: null,
    sequence: 1,
    createdAt,
    updatedAt: createdAt,
    ...fields,
  };
}

/** What the domain hands to orders.create: the order, its first event and, for live orders, the charge. */
export function creation(o: Order): { order: Order; event: OrderEvent; ledger: LedgerEntry | null; idempotency: IdempotencyRecord | null } {
  return {
    order: o,
    event: { ...transition(o, null, o.status, o.createdAt), sequence: 1 },
    ledger: o.mode === 'live' ? ledgerEntry(o, 'charge', o.createdAt, true) : null,
    idempotency: null,
  };
}

/** An order event; the merchant is the actor unless one is given. */
export function transition(
  o: Order,
  from: OrderStatus | null,
  to: OrderStatus,
  when: string,
  actor: OrderEvent['actor'] = { kind: 'merchant', id: o.merchantId },
  reason: string | null = null,
  location: OrderEvent['location'] = null,
): NewOrderEvent {
  return { id: `ev_${ulid(Date.parse(when))}`, orderId: o.id, merchantId: o.merchantId, mode: o.mode, from, to, actor, location, reason, at: when };
}

/** The creation charge has an id derived from the order, so a case can rebuild it. */
export function ledgerEntry(o: Order, kind: LedgerEntry['kind'], when: string, derived = false): LedgerEntry {
  return {
    id: derived ? `led_${o.id}_charge` : nextId('led'),
    merchantId: o.merchantId,
    mode: o.mode,
    orderId: o.id,
    kind,
    amount: kind === 'charge' ? o.price : -o.price,
    at: when,
  };
}

/** An idempotency key claimed at createdAt; it expires a day later. */
export function idempotency(merchantId: string, mode: Mode, key: string, orderId: string, createdAt: string): IdempotencyRecord {
  return {
    merchantId,
    mode,
    key,
    requestHash: hashHex(),
    orderId,
    createdAt,
    expiresAt: new Date(Date.parse(createdAt) + DAY * 1000).toISOString(),
  };
}

export function batch(overrides: Partial<Batch> & { merchantId: string }): Batch {
  const createdAt = overrides.createdAt ?? at(0);
  return {
    id: `bt_${ulid(Date.parse(createdAt))}`,
    mode: 'live',
    geohashZone: '66jc',
    vehicleType: 'car',
    orderIds: [`bk_${ulid(Date.parse(createdAt))}`, `bk_${ulid(Date.parse(createdAt))}`, `bk_${ulid(Date.parse(createdAt))}`],
    totalWeightKg: 7.5,
    courierId: null,
    status: 'pending',
    createdAt,
    updatedAt: createdAt,
    ...overrides,
  };
}
