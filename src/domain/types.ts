import type { NotificationSettings } from './notifications/types.js';
import type { Dimensions } from './parcels.js';
import type { OrderStatus, StopStatus, WebhookDeliveryStatus, WebhookEventType } from './vocabulary.js';

// The statuses and event names are defined in vocabulary.ts; re-exported here for the many readers of types.ts.
export { ORDER_STATUSES, STOP_STATUSES, WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, type OrderStatus, type StopStatus, type WebhookDeliveryStatus, type WebhookEventType } from './vocabulary.js';

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
  /** Whether the customer's tracking page shows a short summary of the order's items (absent: shown). */
  trackingShowItems?: boolean;
  /** Whether a storefront shared secret is stored (the secret itself is never part of the merchant record). */
  storefrontSharedSecretSet?: boolean;
  /** Recipient notifications: channels and moments (absent: nothing is sent). */
  notifications?: NotificationSettings;
  /** The failed-attempt policy of new orders that do not name one (absent: `return`). */
  failedAttemptPolicy?: FailedAttemptPolicy;
  /**
   * Country calling codes ("56", "54") whose numbers this merchant's live SMS and WhatsApp may reach;
   * set by an operator only (absent: Chile alone, DEFAULT_NOTIFICATION_COUNTRIES).
   */
  notificationCountries?: string[];
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
  /**
   * The Ed25519 private key (PKCS#8 DER, base64) of `v1a` signatures, sealed with the master key
   * like the secret and rotated with it: its public key is published with this record's id.
   * Absent on records made before asymmetric signatures: one is made on first use.
   */
  signingKey?: string | null;
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
  /**
   * The planned end of the courier's duty (ISO date-time), set when it goes on duty (or by an
   * operator); null: no planned end. Dispatch offers nothing it cannot pick up before then.
   */
  shiftEndsAt: string | null;
  createdAt: string;
  updatedAt: string;
}


/** What a failed delivery attempt leads to: another try, the parcel back to the pickup, or disposal. */
export const FAILED_ATTEMPT_POLICIES = ['retry', 'return', 'dispose'] as const;
export type FailedAttemptPolicy = (typeof FAILED_ATTEMPT_POLICIES)[number];
export const FAILED_ATTEMPT_REASONS = ['recipient_absent', 'refused', 'wrong_address', 'unsafe', 'other'] as const;
export type FailedAttemptReason = (typeof FAILED_ATTEMPT_REASONS)[number];

/** One failed delivery attempt as the courier reported it, and the status the policy moved the order to. */
export interface FailedAttempt {
  reason: FailedAttemptReason;
  note: string | null;
  /** A photo uploaded for the order (issue #27), or null. */
  photoProofId: string | null;
  coords: LatLng;
  courierId: string;
  at: string;
  outcome: 'picked_up' | 'returning' | 'disposed';
}

/** The return leg to the pickup: its fee (CLP, charged when it starts) and, once returned, its proof. */
export interface ReturnLeg {
  fee: number;
  startedAt: string;
  proof: DeliveryProof | null;
}

export const ROUTE_ORDERS = ['given', 'optimized'] as const;
export type RouteOrder = (typeof ROUTE_ORDERS)[number];

export interface OrderStop {
  /** `stp_` + ULID. */
  id: string;
  /** Position in the route (0-based): the order the courier visits the stops in. */
  index: number;
  /** Position in the request's `stops` array. */
  givenIndex: number;
  location: Stop;
  contact: { name: string; phone: string | null };
  reference: string | null;
  items: Array<Record<string, unknown>>;
  status: StopStatus;
  /** The planned arrival at this stop. */
  eta: string;
  proof: DeliveryProof | null;
  /** Why the courier could not deliver here (a failed stop). */
  failure: { reason: FailedAttemptReason; note: string | null; photoProofId: string | null; at: string; courierId: string } | null;
  arrivedAt: string | null;
}

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
  /** For email notifications (absent on orders created before it was asked). */
  email?: string | null;
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
  /** The recipient's ID check, for an order that required one (absent otherwise). */
  idCheck?: IdCheckProof | null;
}

/** The cash the courier confirmed at the door; `collected` differs from `expected` on a mismatch. */
export interface CodCollection {
  /** The order's cod_amount; null when it was not given (cash on delivery, amount unknown): never a mismatch. */
  expected: number | null;
  collected: number;
  mismatch: boolean;
  courierId: string;
  collectedAt: string;
}

/** The order needs the recipient's ID checked at the door: at least this age on the delivery date. */
export interface IdCheckRequirement {
  minAge: number;
}

/** A passed ID check: never the full document number, only its last 4 characters. */
export interface IdCheckProof {
  verified: true;
  minAge: number;
  documentLast4: string;
  checkedAt: string;
  courierId: string;
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
  /** The parcel's outer size as the merchant gave it (absent on orders from before sizes). */
  dimensions?: Dimensions | null;
  vehicleType: VehicleType;
  price: number;
  currency: 'CLP';
  prepTimeMins: number;
  estimatedPickupAt: string;
  estimatedDeliveryAt: string;
  courierId: string | null;
  batchId: string | null;
  proof: DeliveryProof | null;
  /** `fee`: CLP kept on cancelling (absent on orders cancelled before fees existed). */
  cancellation: { reason: string | null; at: string; fee?: number } | null;
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
  /** The recipient's ID is checked before the delivery (issue #30). */
  idCheck?: IdCheckRequirement | null;
  /** Cash on delivery (issue #30): CLP the courier collects at the door; absent on prepaid orders and on cash-on-delivery orders of unknown amount. */
  codAmount?: number | null;
  /** What the courier collected at delivery (absent until then). */
  codCollection?: CodCollection | null;
  /** The live ETA's last announcement (order.eta_changed); absent until the ETA first follows the courier. */
  etaAnnounced?: EtaAnnouncement | null;
  /** What a failed delivery attempt leads to (absent: the service default, `return`). */
  failedAttemptPolicy?: FailedAttemptPolicy | null;
  /** Failed delivery attempts, oldest first (absent: none). */
  failedAttempts?: FailedAttempt[];
  /** The return leg, once a failed attempt sent the parcel back (absent: none). */
  returnLeg?: ReturnLeg | null;
  /** The courier's tip, CLP (issue #30 item 4): set at creation and added to later (absent: none). */
  tip?: number;
  /**
   * The drop-offs of a multi-stop order, in route order (absent: a single drop-off order). `dropoff`
   * is then the route's last stop, so everything that reads the destination still has one.
   */
  stops?: OrderStop[];
  /** How the stops were ordered (absent: a single drop-off order). */
  route?: RouteOrder;
  /**
   * Each stop's own delivery PIN by stop id (a multi-stop order created with `delivery_pin: true`):
   * beside the stops, not in them, so a try is counted in place and no stop move overwrites it.
   */
  stopPins?: Record<string, DeliveryPin>;
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
  /** A multi-stop quote: the drop-offs before `destination`, in route order (absent: one drop-off). */
  via?: LatLng[];
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

export const ACTOR_KINDS = ['merchant', 'courier', 'system', 'admin'] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

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

export const LEDGER_KINDS = ['charge', 'reversal', 'cod_collected', 'cod_settlement', 'cod_handover', 'tip'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

/**
 * One line of the ledger. `charge`/`reversal`: the delivery price (reversals negative), per order.
 * `cod_collected`: cash a courier took at an order's door (the courier owes it, the merchant is owed
 * it; `expected` is the order's cod_amount). `cod_settlement`: cash handed over, positive: by a
 * courier (courierId, no merchant: before issue #39 only) or paid out to a merchant (merchantId, no
 * courier); no order. `cod_handover` (issue #39): cash a courier handed to the operation, one line per
 * collection it covers (courier, merchant, order: oldest claims first).
 * `tip`: charged to the merchant, paid to the courier (live only, like charges).
 */
export interface LedgerEntry {
  id: string;
  merchantId: string | null;
  mode: Mode;
  orderId: string | null;
  kind: LedgerKind;
  /** CLP; reversals are negative. */
  amount: number;
  at: string;
  /** cod_collected and a courier's cod_settlement only. */
  courierId?: string | null;
  /** cod_collected only: the amount the order expected (null: unknown, the order gave no cod_amount). */
  expected?: number | null;
  /** cod_collected only: absent when the claim counted from the start (issue #39). */
  codState?: CodClaimState | null;
}

/**
 * Where a courier's claim (`cod_collected`) stands: far above the order's amount it waits for an
 * operator (`pending_confirmation`), who confirms it (then it counts) or rejects it (it never counts).
 */
export const COD_CLAIM_STATES = ['pending_confirmation', 'confirmed', 'rejected'] as const;
export type CodClaimState = (typeof COD_CLAIM_STATES)[number];

/** What a busy courier is doing: one order, or one batch of orders. */
export type CourierJob = { kind: 'order' | 'batch'; id: string };


export const WEBHOOK_SIGNINGS = ['symmetric', 'asymmetric'] as const;
export type WebhookSigning = (typeof WEBHOOK_SIGNINGS)[number];

export interface WebhookEndpoint {
  id: string;
  merchantId: string;
  mode: Mode;
  url: string;
  description: string | null;
  events: WebhookEventType[];
  payloadShape: WebhookPayloadShape;
  /** `symmetric`: `v1,` HMAC-SHA256 with the API secret (default); `asymmetric`: `v1a,` Ed25519 verified with the published public keys. */
  signing: WebhookSigning;
  enabled: boolean;
  /** Why the endpoint is disabled (by the merchant, or automatically after sustained failure). */
  disabledReason: string | null;
  /** When the current run of failed attempts began; null after a success. */
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
}


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

/**
 * An operator's role (issue #29): a person who runs the service.
 * - `admin`: everything;
 * - `dispatcher`: reads everything and acts on orders and couriers;
 * - `support`: reads everything and adds notes.
 */
export type OperatorRole = 'admin' | 'dispatcher' | 'support';
export const OPERATOR_ROLES = ['admin', 'dispatcher', 'support'] as const;
/** `invited`: no password yet; `active`: may sign in; `disabled`: may not, its sessions ended. */
export type OperatorStatus = 'invited' | 'active' | 'disabled';
export const OPERATOR_STATUSES = ['invited', 'active', 'disabled'] as const;

/** A person of the operations team (not of any merchant). */
export interface Operator {
  /** `op_` + ULID. */
  id: string;
  /** Normalised (trimmed, lower case); unique among operators. */
  email: string;
  role: OperatorRole;
  status: OperatorStatus;
  /** `scrypt$…`; null until a password is set. Never leaves the domain. */
  passwordHash: string | null;
  createdAt: string;
  updatedAt: string;
}

/** An operator's one-time set-password link token (SHA-256), like a member's. */
export interface OperatorPasswordToken {
  hash: string;
  operatorId: string;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
}

/** An operator's signed-in browser (its own cookie, `exd_ops_session`): the store keeps the id's SHA-256. */
export interface OperatorSession {
  hash: string;
  operatorId: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
}

/** Who did an audited action: an operator, the ADMIN_TOKEN (automation) or the admin CLI. */
export type AuditActor = { kind: 'operator'; id: string; email: string } | { kind: 'admin_token' } | { kind: 'cli' };
export const AUDIT_TARGET_TYPES = ['merchant', 'courier', 'user', 'member', 'operator', 'order'] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/** One audited action: who, when, what, on what, and small before/after snapshots (never a secret). */
export interface AuditEntry {
  /** `au_` + ULID: time-ordered, the keyset of the listing. */
  id: string;
  at: string;
  actorKind: AuditActor['kind'];
  /** The operator's id; null for the admin token and the CLI. */
  actorId: string | null;
  actorEmail: string | null;
  /** `merchant.suspend`, `courier.disable`, `operator.invite`, `note.add`… */
  action: string;
  targetType: AuditTargetType;
  targetId: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}
