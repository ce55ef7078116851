export type Mode = 'live' | 'test';
export const MODES = ['live', 'test'] as const;

export interface LatLng {
  lat: number;
  lng: number;
}

export type VehicleType = 'bike' | 'motorcycle' | 'car' | 'van';
export const VEHICLE_TYPES = ['bike', 'motorcycle', 'car', 'van'] as const;

export type MerchantStatus = 'active' | 'in_review' | 'suspended';
export const MERCHANT_STATUSES = ['active', 'in_review', 'suspended'] as const;

export type IntegrationName = 'plugin' | 'storefront' | 'erp';
export const INTEGRATION_NAMES = ['plugin', 'storefront', 'erp'] as const;

export type IntegrationStatus = 'pending_approval' | 'approved' | 'rejected';
export const INTEGRATION_STATUSES = ['pending_approval', 'approved', 'rejected'] as const;

export type WebhookPayloadShape = 'event' | 'flat';

export interface MerchantSettings {
  prepTimeMins: number;
  storefrontDomain: string | null;
  integrationPlatform: IntegrationName | null;
  webhookPayloadShape: WebhookPayloadShape;
  webhookCourierLocation: boolean;
  /** Sandbox simulator speed multiplier for this merchant's test orders; null uses the configured default. */
  sandboxSpeed: number | null;
  /** Whether a storefront shared secret is stored (the secret itself is never part of the merchant record). */
  storefrontSharedSecretSet?: boolean;
}

export interface Merchant {
  id: string;
  name: string;
  status: MerchantStatus;
  address: string | null;
  integrations: Record<IntegrationName, IntegrationStatus>;
  settings: MerchantSettings;
  /** Per-merchant override of the per-key request limit; null uses the configured default. */
  rateLimitPerMin: number | null;
  createdAt: string;
  updatedAt: string;
}

export type ApiKeyStatus = 'active' | 'revoked';

export interface ApiKeyRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  /** SHA-256 hex of the full key; the key itself is never stored. */
  hash: string;
  /** First characters of the key, safe to display ("ak_test_AbC1…"). */
  prefix: string;
  status: ApiKeyStatus;
  createdAt: string;
  revokedAt: string | null;
}

/** The merchant's API secret (whsec_…), encrypted at rest because signing needs the plain value. */
export interface MerchantSecretRecord {
  id: string;
  merchantId: string;
  ciphertext: string;
  createdAt: string;
  /** Set when a newer secret replaced it; it keeps signing until then (rotation overlap). */
  expiresAt: string | null;
}

export interface RegisteredUser {
  id: string;
  /** Normalised RUT: body digits, hyphen, check digit (`12345678-5`). */
  rut: string;
  name: string | null;
  phone: string | null;
  createdAt: string;
}

export type CourierDutyStatus = 'off_duty' | 'available' | 'busy';
export type CourierAccountStatus = 'active' | 'disabled';
export const COURIER_ACCOUNT_STATUSES = ['active', 'disabled'] as const;

export interface Courier {
  id: string;
  mode: Mode;
  name: string;
  phone: string;
  vehicle: VehicleType;
  plate: string;
  tokenHash: string;
  /** A disabled courier's token authenticates nowhere and dispatch never claims it. */
  accountStatus: CourierAccountStatus;
  status: CourierDutyStatus;
  location: LatLng | null;
  locationAt: string | null;
  /** The order or batch the courier is on while busy. */
  job: CourierJob | null;
  createdAt: string;
  updatedAt: string;
}

export type OrderStatus = 'new' | 'assigned' | 'arrived_pickup' | 'picked_up' | 'arrived_dropoff' | 'completed' | 'cancelled';
export const ORDER_STATUSES = ['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed', 'cancelled'] as const;

export type PaymentMode = 'prepaid' | 'cash_on_delivery';
export const PAYMENT_MODES = ['prepaid', 'cash_on_delivery'] as const;

/**
 * How exactly a location is known: `coordinates` given by the caller, `street` from a street-level
 * geocoder that matched the house number, `locality` from the comuna gazetteer (the comuna's point).
 */
export type LocationPrecision = 'coordinates' | 'street' | 'locality';
export const LOCATION_PRECISIONS = ['coordinates', 'street', 'locality'] as const;

export interface Stop extends LatLng {
  address: string | null;
  number: string | null;
  instructions: string | null;
  /** What the geocoder matched (e.g. the comuna), or "coordinates". */
  label: string;
  precision: LocationPrecision;
  geohash: string;
}

export interface OrderCustomer {
  name: string;
  phone: string | null;
  /** Normalised RUT (`12345678-5`). */
  rut: string | null;
  userId: string | null;
  isRegisteredUser: boolean;
}

/** `passed`: within the radius of a precise drop-off; `bypassed`: skipped on request; `unverified`: a locality-precision drop-off. */
export type GeofenceOutcome = 'passed' | 'bypassed' | 'unverified';
export const GEOFENCE_OUTCOMES = ['passed', 'bypassed', 'unverified'] as const;

export interface DeliveryProof {
  driverId: string;
  coords: LatLng;
  distanceM: number;
  radiusM: number;
  bypass: boolean;
  geofence: GeofenceOutcome;
  /** An external link, or '' when the photo is a hosted proof (photoProofId). */
  photoUrl: string;
  signatureUrl: string;
  /** Hosted proofs (issue #27): presented as signed, expiring links. */
  photoProofId?: string | null;
  signatureProofId?: string | null;
  deliveredAt: string;
}

export interface Order {
  /** booking_id: `bk_` + ULID. */
  id: string;
  merchantId: string;
  mode: Mode;
  /** Random (not sequential) numeric order number, as a string of digits. */
  orderNumber: string;
  trackingNumber: string;
  referenceId: string | null;
  ecommerceOrderId: string | null;
  status: OrderStatus;
  pickup: Stop;
  dropoff: Stop;
  customer: OrderCustomer;
  paymentMode: PaymentMode;
  items: Array<Record<string, unknown>>;
  notes: string | null;
  weightKg: number;
  vehicleType: VehicleType;
  price: number;
  currency: 'CLP';
  prepTimeMins: number;
  estimatedPickupAt: string;
  estimatedDeliveryAt: string;
  courierId: string | null;
  batchId: string | null;
  proof: DeliveryProof | null;
  cancellation: { reason: string | null; at: string } | null;
  /** Number of the last event of this order; each transition adds one (the webhook sequence). */
  sequence: number;
  createdAt: string;
  updatedAt: string;
  /** The bound quote the order was priced from (absent or null: priced at creation). */
  quote?: OrderQuoteRef | null;
  /** Scheduled delivery: the courier is to pick up at or after this time (null: as soon as possible). */
  scheduledPickupAt?: string | null;
  /** The latest delivery time the merchant asked for (checked reachable at creation). */
  deliverBefore?: string | null;
  /** A scheduled order is not dispatched before this time (the pickup window less the approach time). */
  dispatchAfter?: string | null;
  /**
   * A batched-rate order waits this window for companions in its zone (a batch run may take it
   * while the window is open); at `closesAt` it is dispatched, alone if nothing joined it.
   */
  batchWindow?: BatchWindow | null;
  /** The recipient's delivery PIN, required to confirm the delivery; never shown outside the merchant's own reads. */
  deliveryPin?: DeliveryPin | null;
  /** The live ETA's last announcement (order.eta_changed); absent until the ETA first follows the courier. */
  etaAnnounced?: EtaAnnouncement | null;
}

/** The delivery estimate last announced to the merchant, and when; `at` null: the estimate the live ETA started from (never sent). */
export interface EtaAnnouncement {
  deliveryAt: string;
  at: string | null;
}

export interface BatchWindow {
  opensAt: string;
  closesAt: string;
}

export type RateId = 'express' | 'batched';
export const RATE_IDS = ['express', 'batched'] as const;

export interface OrderQuoteRef {
  id: string;
  rateId: RateId;
}

export interface DeliveryPin {
  /** Four digits. */
  pin: string;
  /** Wrong tries counted since it was issued; at the limit the delivery is locked until the merchant resets it. */
  failedAttempts: number;
  issuedAt: string;
}

/** A quote as kept for binding: what it priced, for whom, until when. */
export interface StoredQuote {
  /** `qt_` + ULID. */
  id: string;
  merchantId: string;
  mode: Mode;
  origin: LatLng;
  destination: LatLng;
  weightKg: number;
  /** The price band: the vehicle class the weight selected. */
  vehicleType: VehicleType;
  prepTimeMins: number;
  rates: Array<{ id: RateId; cost: number }>;
  pickupAfter: string | null;
  deliverBefore: string | null;
  createdAt: string;
  expiresAt: string;
}

export type ActorKind = 'merchant' | 'courier' | 'system' | 'admin';

/** One transition of an order's history: who, when, where. */
export interface OrderEvent {
  id: string;
  orderId: string;
  merchantId: string;
  mode: Mode;
  sequence: number;
  from: OrderStatus | null;
  to: OrderStatus;
  actor: { kind: ActorKind; id: string | null };
  location: LatLng | null;
  reason: string | null;
  at: string;
}

export type BatchStatus = 'pending' | 'assigned' | 'completed' | 'cancelled';

export interface Batch {
  id: string;
  merchantId: string;
  mode: Mode;
  geohashZone: string;
  vehicleType: VehicleType;
  orderIds: string[];
  totalWeightKg: number;
  courierId: string | null;
  status: BatchStatus;
  createdAt: string;
  updatedAt: string;
}

export interface LedgerEntry {
  id: string;
  merchantId: string;
  mode: Mode;
  orderId: string;
  kind: 'charge' | 'reversal';
  /** CLP; reversals are negative. */
  amount: number;
  at: string;
}

/** What a busy courier is doing: one order, or one batch of orders. */
export type CourierJob = { kind: 'order' | 'batch'; id: string };

export type WebhookEventType = 'order.status_changed' | 'order.courier_location' | 'batch.created' | 'order.eta_changed';
export const WEBHOOK_EVENT_TYPES = ['order.status_changed', 'order.courier_location', 'batch.created', 'order.eta_changed'] as const;

export interface WebhookEndpoint {
  id: string;
  merchantId: string;
  mode: Mode;
  url: string;
  description: string | null;
  events: WebhookEventType[];
  payloadShape: WebhookPayloadShape;
  enabled: boolean;
  /** Why the endpoint is disabled (by the merchant, or automatically after sustained failure). */
  disabledReason: string | null;
  /** When the current run of failed attempts began; null after a success. */
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event for one endpoint: the exact body is fixed when the event happens and resent as is. */
export interface WebhookDelivery {
  /** The webhook-id header: unique per event and endpoint, stable across retries. */
  id: string;
  endpointId: string;
  merchantId: string;
  mode: Mode;
  eventType: WebhookEventType;
  orderId: string | null;
  sequence: number | null;
  body: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  nextAttemptAt: string;
  leaseOwner: string | null;
  leaseUntil: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  lastLatencyMs: number | null;
  createdAt: string;
  deliveredAt: string | null;
}

export interface WebhookAttempt {
  id: string;
  deliveryId: string;
  attempt: number;
  at: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

/** What the integrations of a merchant have been seen doing (plugin version, site, calls). */
export interface IntegrationTelemetry {
  merchantId: string;
  mode: Mode;
  integration: IntegrationName;
  site: string | null;
  pluginVersion: string | null;
  userAgent: string | null;
  callCount: number;
  firstSeenAt: string;
  lastSeenAt: string;
}

/** A merchant's team member's role (issue #19): what a person signed in to the console may do. */
export type MemberRole = 'owner' | 'dispatcher' | 'viewer';
export const MEMBER_ROLES = ['owner', 'dispatcher', 'viewer'] as const;
/** `invited`: no password yet (a set-password link is out); `active`: may sign in. */
export type MemberStatus = 'invited' | 'active';

/** A person of a merchant's team (not a delivery recipient: those are RegisteredUser). */
export interface Member {
  /** `mb_` + ULID. */
  id: string;
  merchantId: string;
  /** Normalised (trimmed, lower case); unique within the merchant. */
  email: string;
  role: MemberRole;
  status: MemberStatus;
  /** `scrypt$…` (src/domain/members/passwords.ts); null until the member sets a password. Never leaves the domain. */
  passwordHash: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A one-time set-password link's token, stored as its SHA-256. */
export interface MemberPasswordToken {
  hash: string;
  memberId: string;
  merchantId: string;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
}

/** A signed-in browser: the cookie carries the id, the store its SHA-256. */
export interface MemberSession {
  hash: string;
  memberId: string;
  merchantId: string;
  createdAt: string;
  /** Refreshed at most once a minute while used; the idle expiry counts from it. */
  lastSeenAt: string;
  /** The absolute expiry, whatever the use. */
  expiresAt: string;
}
