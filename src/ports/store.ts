import type { ProofBudgetRepository, ProofStore } from './proof-store.js';
import type { CourierSessionRepository } from './courier-sessions.js';
import type {
  ApiKeyRecord,
  IntegrationTelemetry,
  Batch,
  CodClaimState,
  Courier,
  CourierAccountStatus,
  CourierDutyStatus,
  CourierJob,
  EtaAnnouncement,
  LedgerEntry,
  Order,
  OrderEvent,
  OrderStatus,
  VehicleType,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEventType,
  LatLng,
  IntegrationName,
  Merchant,
  MerchantSecretRecord,
  MerchantSettings,
  Mode,
  RegisteredUser,
  StoredQuote,
} from '../domain/types.js';
import type { Notification, NotificationBlockReason } from '../domain/notifications/types.js';
import type { MemberRepository } from './members.js';
import type { AuditRepository, OperatorRepository } from './operators.js';
import type { StoreCondition } from './store-condition.js';

/**
 * The persistence port. Every method is one atomic unit of work: adapters run it in a single
 * transaction (SQLite) or a single document write / session transaction (MongoDB).
 */
export interface Store {
  readonly kind: 'sqlite' | 'mongodb';
  merchants: MerchantRepository;
  apiKeys: ApiKeyRepository;
  users: UserRepository;
  /** Merchant team members (people of the console), their set-password tokens and sessions. */
  members: MemberRepository;
  /** Operators (people who run the service), their set-password tokens and sessions. */
  operators: OperatorRepository;
  /** The audit log of operator, admin-token and CLI actions. */
  audit: AuditRepository;
  couriers: CourierRepository;
  /** Couriers' one-time sign-in codes and app sessions (issue #27). */
  courierSessions: CourierSessionRepository;
  /** Hosted proofs of delivery (issue #27): files under DATA_DIR, or GridFS. */
  proofs: ProofStore;
  /** The upload budgets' counters (issue #39): proofs per order stop, bytes per courier and day. */
  proofBudgets: ProofBudgetRepository;
  telemetry: TelemetryRepository;
  orders: OrderRepository;
  batches: BatchRepository;
  ledger: LedgerRepository;
  webhooks: WebhookRepository;
  leases: LeaseRepository;
  quotes: QuoteRepository;
  idempotentWrites: IdempotentWriteRepository;
  events: EventFeedRepository;
  /** The recipient-notification outbox. */
  notifications: NotificationRepository;
  /**
   * A token that changes whenever a merchant or an API key may have changed, by any process; or
   * null when the store cannot tell without a round trip (callers then must not cache them).
   */
  credentialsVersion(): string | null;
  /**
   * Gives up to `maxPages` free pages of the file back to the filesystem (SQLite's incremental
   * vacuum, one short write); answers how many it gave back, 0 when none are left or the store has
   * no such step (MongoDB).
   */
  reclaimSpace(options: { maxPages: number }): Promise<number>;
  /**
   * Throws when the backing database cannot be reached; resolves with its condition (or nothing:
   * ok) when it answers, `degraded` with the reason while writes cannot be made (lock, disk) or
   * the file was found damaged.
   */
  ping(): Promise<StoreCondition | void>;
  close(): Promise<void>;
}

/**
 * orders.create: the order's id, order number or tracking number is already taken (they are
 * random: the caller draws new ones and tries again). Nothing was written.
 */
export class DuplicateOrderIdentifierError extends Error {
  constructor() {
    super('order identifier already taken');
    this.name = 'DuplicateOrderIdentifierError';
  }
}

export interface NewMerchantBundle {
  merchant: Merchant;
  keys: ApiKeyRecord[];
  secret: MerchantSecretRecord;
}

/**
 * Fields to change. `integrations` and `settings` are merged key by key inside the same atomic
 * write, so two concurrent patches of different keys never undo each other.
 */
export type MerchantPatch = Partial<Pick<Merchant, 'name' | 'status' | 'address' | 'rateLimitPerMin'>> & {
  integrations?: Partial<Merchant['integrations']>;
  settings?: Partial<MerchantSettings>;
};

/** The storefront shared secret, sealed, with the one it replaced while that one is still accepted. */
export interface StorefrontSecretRecord {
  current: string;
  previous: string | null;
  previousExpiresAt: string | null;
}

export interface MerchantRepository {
  /** Creates the merchant with its keys and secret, all or nothing. */
  create(bundle: NewMerchantBundle): Promise<void>;
  findById(id: string): Promise<Merchant | null>;
  /**
   * Applies the patch and returns the updated merchant, or null when it does not exist. Throws
   * AppError CONFLICT when the storefront domain belongs to another merchant.
   */
  update(id: string, patch: MerchantPatch, updatedAt: string): Promise<Merchant | null>;
  /** The merchant whose settings name this storefront domain (unique across merchants). */
  findByStorefrontDomain(domain: string): Promise<Merchant | null>;
  count(): Promise<number>;
  list(options: { limit: number; afterId?: string }): Promise<Merchant[]>;
  /** Merchants whose id starts with `idPrefix` (by id) then whose lower-cased name starts with `namePrefix` (by name), without repeats, at most `limit`. */
  search(options: { idPrefix: string; namePrefix: string; limit: number }): Promise<Merchant[]>;
  /** Secrets newest first, including ones still inside their rotation overlap. */
  listSecrets(merchantId: string): Promise<MerchantSecretRecord[]>;
  /** Adds a new secret and sets expiresAt on the previous current one, atomically. */
  rotateSecret(secret: MerchantSecretRecord, previousExpiresAt: string): Promise<void>;
  /**
   * Gives a secret made before asymmetric signatures its sealed Ed25519 key, unless it has one
   * already (another node won the race): answers the key the record holds after.
   */
  setSigningKey(options: { secretId: string; sealed: string }): Promise<string>;
  /** The storefront app's shared secret, sealed; null when none is stored. Never part of the Merchant record. */
  findStorefrontSecret(merchantId: string): Promise<StorefrontSecretRecord | null>;
  /**
   * Stores the sealed storefront secret and sets settings.storefrontSharedSecretSet, atomically; the
   * one it replaces becomes `previous` until previousExpiresAt. null removes both at once. Answers
   * the merchant after, or null when unknown.
   */
  setStorefrontSecret(options: { merchantId: string; sealed: string | null; updatedAt: string; previousExpiresAt: string }): Promise<Merchant | null>;
}

export interface ApiKeyRepository {
  findByHash(hash: string): Promise<ApiKeyRecord | null>;
  listByMerchant(merchantId: string): Promise<ApiKeyRecord[]>;
  /** Revokes every active key of the merchant in that mode and inserts the replacement, atomically. */
  replace(key: ApiKeyRecord, revokedAt: string): Promise<number>;
  /** Revokes active keys of the merchant in that mode; returns how many were revoked. */
  revoke(options: { merchantId: string; mode: Mode; revokedAt: string }): Promise<number>;
}

export interface UserRepository {
  /** Inserts the user; returns false when the RUT is already registered. */
  insert(user: RegisteredUser): Promise<boolean>;
  findByRut(rut: string): Promise<RegisteredUser | null>;
}

export interface CourierRepository {
  insert(courier: Courier): Promise<void>;
  findById(id: string): Promise<Courier | null>;
  findByTokenHash(hash: string): Promise<Courier | null>;
  listByMode(mode: Mode): Promise<Courier[]>;
  /** One keyset page of every courier in id order, after `afterId`, optionally of one mode and duty status (the operators' list). */
  listPage(options: { mode?: Mode; status?: CourierDutyStatus; afterId?: string; limit: number }): Promise<Courier[]>;
  /**
   * Replaces the token hash: the old token stops matching at once. Null when the courier does not
   * exist; rejects (changing nothing) when another courier has that hash.
   */
  replaceTokenHash(options: { id: string; tokenHash: string; updatedAt: string }): Promise<Courier | null>;
  /** Sets the account status; null when the courier does not exist. */
  setAccountStatus(options: { id: string; accountStatus: CourierAccountStatus; updatedAt: string }): Promise<Courier | null>;
  /**
   * Sets the duty status (and the job, when given), only when the current status is one of `from`
   * and, when `fromJobId` is given, the current job has that id (compare-and-set). Null when not applied.
   * A disabled courier is never moved to `available` or `busy` (null); off duty always applies.
   * `shiftEndsAt`, when given, is written with the status (going on duty with a planned end, off duty clearing it).
   */
  setStatus(options: {
    id: string;
    status: CourierDutyStatus;
    from?: CourierDutyStatus[];
    fromJobId?: string;
    job?: CourierJob | null;
    shiftEndsAt?: string | null;
    updatedAt: string;
  }): Promise<Courier | null>;
  /**
   * Sets (or clears, null) the planned end of the courier's duty, only while it is on duty
   * (`available` or `busy`); null when the courier does not exist or is off duty.
   */
  setShiftEnd(options: { id: string; shiftEndsAt: string | null; updatedAt: string }): Promise<Courier | null>;
  /**
   * Records each courier's latest position and its time, in one write for the whole batch (the
   * coalescing writer flushes many couriers at once). Unknown couriers are skipped; a position
   * older than the stored one is ignored.
   */
  setLocations(positions: readonly CourierPosition[]): Promise<void>;
  /** Removes the courier (a sandbox run's own, when the run ends); false when there was none. */
  delete(id: string): Promise<boolean>;
}

export interface CourierPosition {
  id: string;
  location: LatLng;
  at: string;
  /** Written at once even behind a batching writer (the report that makes the courier live again). */
  prompt?: boolean;
}

/** Calls of one integration from one site, counted for administrative moderation. */
export type { IntegrationTelemetry } from '../domain/types.js';

export interface TelemetryRepository {
  /** Counts one call: creates the (merchant, mode, integration, site) row or bumps it, atomically. */
  record(call: { merchantId: string; mode: Mode; integration: IntegrationName; site: string | null; pluginVersion: string | null; userAgent: string | null; at: string }): Promise<void>;
  /** Rows of the merchant, most recently seen first. */
  listByMerchant(merchantId: string): Promise<IntegrationTelemetry[]>;
}

/** An idempotency key claimed by an order creation; kept until expiresAt (24 h). */
export interface IdempotencyRecord {
  merchantId: string;
  mode: Mode;
  key: string;
  requestHash: string;
  orderId: string;
  createdAt: string;
  expiresAt: string;
}

export type NewOrderEvent = Omit<OrderEvent, 'sequence'>;

export type OrderPatch = Partial<
  Pick<Order, 'courierId' | 'batchId' | 'estimatedPickupAt' | 'estimatedDeliveryAt' | 'proof' | 'cancellation' | 'price' | 'deliveryPin' | 'failedAttempts' | 'returnLeg' | 'codCollection' | 'stops' | 'stopPins'>
>;

/** A place in a walk over orders in creation order: the last order passed. */
export interface QueuePosition {
  createdAt: string;
  id: string;
}

export interface AcrossMerchantsPage {
  modes: Mode[];
  statuses: OrderStatus[];
  merchantId?: string;
  createdFrom?: string;
  createdTo?: string;
  lateAt?: string;
  /** A geohash prefix (2–6 characters) the pickup is in: a seek at 5 and 6 characters, a row test when shorter. */
  pickupZone?: string;
  after?: string;
  limit: number;
  /**
   * The most orders the store reads for this page (issue #41): a filter no index serves is tested
   * on each order read, and the read stops there even when fewer than `limit` matched.
   */
  examineAtMost: number;
}

/** A page of the operators' list: `resumeAfter` is set when the read stopped at `examineAtMost` (the last order read, a cursor to go on from). */
export interface AcrossMerchantsResult<T = Order> {
  orders: T[];
  resumeAfter: string | null;
}

export interface OrderRepository {
  /**
   * Creates the order with its first event and ledger entry. With an idempotency claim, the key is
   * inserted in the same transaction under a unique index: when it already exists (and has not
   * expired) nothing is written and the existing record is returned.
   */
  create(options: {
    order: Order;
    event: OrderEvent;
    /** The charge, and a tip set at creation (issue #30 item 4): a list when there are both. */
    ledger: LedgerEntry | readonly LedgerEntry[] | null;
    idempotency: IdempotencyRecord | null;
    /** Webhook deliveries of the creation (transactional outbox: written with the order or not at all). */
    outbox?: WebhookDelivery[];
    /** The creation's event in the merchant's feed (written with the order or not at all). */
    feed?: NewFeedEvent | NewFeedEvent[];
    /** Recipient notifications of the creation (written with the order; a repeated (order, moment, channel) is skipped). */
    notifications?: Notification[];
  }): Promise<{ created: true } | { created: false; existing: IdempotencyRecord }>; // rejects with DuplicateOrderIdentifierError
  findById(id: string): Promise<Order | null>;
  /** The idempotency record of the key (expired ones included; the caller compares expiresAt). */
  findIdempotencyKey(options: { merchantId: string; mode: Mode; key: string }): Promise<IdempotencyRecord | null>;
  /** Resolves booking id, reference id / shop order id, tracking number or order number within one merchant and mode. */
  findByAnyId(options: { merchantId: string; mode: Mode; ref: string }): Promise<Order | null>;
  /** Public tracking: tracking number or order number, any merchant. */
  findByTrackingRef(ref: string): Promise<Order | null>;
  /**
   * Compare-and-set on the status: applies the patch (and moves to `to`, writing `event` with the
   * next sequence number, plus the ledger entry) only when the status is one of `from`.
   * The stored event's `from` is the status the order actually had. `outbox`, when given, builds
   * the webhook deliveries from the updated order and its event; they are written in the same
   * transaction (it must be a pure, synchronous function).
   * Returns the updated order, or null when the order is missing or its status is not in `from`.
   */
  apply(options: {
    id: string;
    from: OrderStatus[];
    to?: OrderStatus;
    patch?: OrderPatch;
    event?: NewOrderEvent;
    ledger?: LedgerEntry | null;
    outbox?: (order: Order, event: OrderEvent) => WebhookDelivery[];
    /** Builds the transition's event in the merchant's feed, written in the same transaction (pure, synchronous). */
    /** A multi-stop order's change may add its stops' events after the status event. */
    feed?: (order: Order, event: OrderEvent) => NewFeedEvent | NewFeedEvent[];
    /**
     * Builds the transition's recipient notifications (pure, synchronous), written in the same
     * transaction; one already written for the same (order, moment, channel) is skipped.
     */
    notifications?: (order: Order, event: OrderEvent) => Notification[];
  }): Promise<Order | null>;
  /**
   * A tip added to an order (issue #30 item 4), not a transition (no event; sequence and status
   * unchanged): adds `amount` to the stored tip (absent: 0) only while the status is one of `from`
   * and the tip after stays at most `maxTotal` (concurrent tips never pass it), and in the same transaction writes the ledger entry, the webhook deliveries and the feed event
   * each builder makes from the updated order (pure, synchronous). Null when not applied.
   */
  addTip(options: {
    id: string;
    from: OrderStatus[];
    amount: number;
    maxTotal: number;
    ledger: (order: Order) => LedgerEntry | null;
    outbox?: (order: Order) => WebhookDelivery[];
    feed: (order: Order) => NewFeedEvent;
  }): Promise<Order | null>;
  /**
   * Orders `courierId` delivered (completed, with a proof) with a delivery time in [from, to),
   * oldest delivery first, at most `limit` (the courier's earnings).
   */
  listDeliveredBy(options: { courierId: string; from: string; to: string; limit: number }): Promise<Order[]>;
  /** The merchant's orders, newest first; `after` is the id of the last order of the previous page. */
  list(options: {
    merchantId: string;
    mode: Mode;
    statuses?: OrderStatus[];
    createdFrom?: string;
    createdTo?: string;
    after?: string;
    limit: number;
  }): Promise<Order[]>;
  listEvents(orderId: string): Promise<OrderEvent[]>;
  /**
   * Operators' view (issue #29): orders of every merchant (or one), newest first (createdAt, then
   * id), in keyset pages; `after` is the id of the last order of the previous page. Every (mode,
   * status) pair asked is one seek, merged in order. `lateAt`: only orders whose ETA or delivery
   * window end is before that instant (the caller asks only for statuses still in progress). At
   * most `examineAtMost` orders are read: fewer than `limit` may come back, with `resumeAfter`.
   */
  listAcrossMerchants(options: AcrossMerchantsPage): Promise<AcrossMerchantsResult>;
  /**
   * The live ETA, not a transition (no event, the sequence and updatedAt unchanged): sets
   * estimatedDeliveryAt (and etaAnnounced when given; `etaBaseline` only when the order has none yet;
   * else it stays as stored) only while the order is `courierId`'s and its status is one of `from`. `outbox`, when given, builds the deliveries of an order.eta_changed from the updated
   * order; they are written in the same transaction (a pure, synchronous function). ETA changes are
   * not events of the merchant's feed. Returns the updated order, or null when not applied.
   */
  updateEstimate(options: {
    id: string;
    courierId: string;
    from: OrderStatus[];
    estimatedDeliveryAt: string;
    etaAnnounced?: EtaAnnouncement;
    etaBaseline?: EtaAnnouncement;
    outbox?: (order: Order) => WebhookDelivery[];
  }): Promise<Order | null>;
  /**
   * Retention, one bounded step: deletes the events of at most `limit` orders that are over
   * (completed or cancelled), were created before `createdBefore` and still have theirs; the orders
   * stay, marked so that no later step looks at them again. Returns how many orders it handled:
   * fewer than `limit` means nothing is left. Finding them is a seek, never a walk past handled ones.
   */
  pruneEvents(options: { createdBefore: string; limit: number }): Promise<number>;
  /**
   * Queued orders (new, no courier, no batch) a vehicle of these types can carry, oldest first. With
   * `dueBy`, scheduled orders whose dispatchAfter is later than it are left out.
   */
  listQueued(options: { mode: Mode; vehicleTypes: VehicleType[]; limit: number; dueBy?: string }): Promise<Order[]>;
  /**
   * One bounded step of a walk over the mode's `new` orders, oldest first (created_at, then id),
   * after `after` (from the start when null): looks at no more than `examine` of them and returns
   * those listQueued would list (no courier, no batch, these vehicle types, due by `dueBy`), with
   * where to go on from (null once the walk reached the end).
   */
  scanQueued(options: { mode: Mode; vehicleTypes: VehicleType[]; dueBy: string; after: QueuePosition | null; examine: number }): Promise<{ orders: Order[]; next: QueuePosition | null }>;
  /**
   * One delivery-PIN try, atomically (concurrent tries never count past `maxAttempts`): `locked` when
   * `maxAttempts` wrong tries are already counted (the PIN is then not compared, nothing is counted);
   * else `ok` when the PIN is `pin`; else `invalid`, the try counted. `failedAttempts` is the count
   * after the try. null when the order does not exist or has no PIN.
   */
  tryDeliveryPin(options: { id: string; pin: string; maxAttempts: number; /** A multi-stop order's stop: its own PIN. */ stopId?: string }): Promise<{ outcome: 'ok' | 'invalid' | 'locked'; failedAttempts: number } | null>;
  /** Orders still `new` that belong to a batch (the reconciler checks each one's batch), oldest first, after `after` when given. */
  listNewInBatches(options: { mode: Mode; limit: number; after?: QueuePosition }): Promise<Order[]>;
  /** Orders not yet picked up (new or assigned, no batch) whose pickup geohash starts with the prefix. */
  listConsolidatable(options: { merchantId: string; mode: Mode; geohashPrefix: string; limit: number }): Promise<Order[]>;
}

export interface BatchRepository {
  /** Inserts the batch (and its webhook deliveries and feed event, in the same transaction). */
  insert(batch: Batch, outbox?: WebhookDelivery[], feed?: NewFeedEvent): Promise<void>;
  findById(id: string): Promise<Batch | null>;
  /** Compare-and-set on the batch status; null when not applied. */
  update(options: { id: string; from: Batch['status'][]; patch: Partial<Pick<Batch, 'status' | 'courierId' | 'orderIds' | 'totalWeightKg'>>; updatedAt: string }): Promise<Batch | null>;
  list(options: { merchantId: string; mode: Mode; after?: string; limit: number }): Promise<Batch[]>;
  /** Pending batches for these vehicle types, oldest first. */
  listPending(options: { mode: Mode; vehicleTypes: VehicleType[]; limit: number }): Promise<Batch[]>;
}

/** Sums of cash-on-delivery lines (CLP), and how many collections differed from the order's amount. */
export interface CodSums {
  /** Couriers' claims that count: collected at doors, not waiting for (or refused by) an operator. */
  collected: number;
  /** Claims waiting for an operator's confirmation (issue #39): they count nowhere yet. */
  pending: number;
  /** Cash couriers handed to the operation (`cod_handover`; for a courier, its older `cod_settlement` lines too). */
  handedOver: number;
  /** Paid out to the merchant (a merchant's `cod_settlement`); 0 for a courier. */
  paidOut: number;
  mismatches: number;
}

/** A courier's claim that counts, and what was handed over against it so far (issue #39). */
export interface CodClaimHolding {
  claim: LedgerEntry;
  handedOver: number;
}

/** What a hand-over is decided on: the courier's live claims that count, oldest first (at, id). */
export interface CourierCodBook {
  claims: CodClaimHolding[];
  /** The courier's hand-overs recorded before issue #39 (`cod_settlement`, no merchant): they cover the oldest claims. */
  legacyHandedOver: number;
}

export interface LedgerRepository {
  listByMerchant(options: { merchantId: string; mode: Mode }): Promise<LedgerEntry[]>;
  /** Writes one entry outside any order change (tests seed ledgers with it; hand-overs and payouts have their own methods). */
  append(entry: LedgerEntry): Promise<void>;
  findById(id: string): Promise<LedgerEntry | null>;
  /**
   * A courier's hand-over (issue #39): reads the courier's book, lets `plan` (synchronous, pure)
   * decide the `cod_handover` lines, and writes them — one atomic step across processes, so two
   * hand-overs at once cannot cover the same claim twice. An error thrown by `plan` writes nothing.
   */
  handOverCod(options: { courierId: string; plan: (book: CourierCodBook) => LedgerEntry[] }): Promise<LedgerEntry[]>;
  /**
   * Writes a merchant payout (`cod_settlement` with merchantId) unless it is more than the cash
   * handed over for that merchant's live account minus what was paid out — the check and the write
   * one atomic step across processes: two operators paying at once cannot both take the same cash.
   */
  payOutCod(entry: LedgerEntry): Promise<{ paid: true } | { paid: false; handedOver: number; paidOut: number }>;
  /** Compare-and-set of a claim waiting for confirmation to `confirmed` or `rejected`: the claim after, or null when it was not waiting. */
  resolveCodClaim(options: { id: string; to: 'confirmed' | 'rejected' }): Promise<LedgerEntry | null>;
  /** Claims in one state (every merchant's; optionally one courier's), oldest first (at, id), after the claim `afterId`. */
  listCodClaims(options: { state: CodClaimState; courierId?: string; afterId?: string; limit: number }): Promise<LedgerEntry[]>;
  /**
   * The merchant's cod_collected lines with `from` ≤ at < `to`, oldest first (at, then id), after the
   * line `afterId` (keyset; an unknown id gives nothing).
   */
  listCodCollections(options: { merchantId: string; mode: Mode; from?: string; to: string; afterId?: string; limit: number }): Promise<LedgerEntry[]>;
  /** CLP handed over against each of these orders' claims (orders without a hand-over are absent). */
  handedOverByOrder(options: { orderIds: string[] }): Promise<Map<string, number>>;
  /** The merchant's COD sums with `from` (when given) ≤ at < `to`. */
  merchantCodSums(options: { merchantId: string; mode: Mode; from?: string; to: string }): Promise<CodSums>;
  /** A courier's COD sums over all time: claims, handed over. */
  courierCodSums(options: { courierId: string }): Promise<CodSums>;
}

export type WebhookEndpointPatch = Partial<Pick<WebhookEndpoint, 'url' | 'description' | 'events' | 'payloadShape' | 'signing' | 'enabled' | 'disabledReason' | 'failingSince'>>;

export interface WebhookRepository {
  insertEndpoint(endpoint: WebhookEndpoint): Promise<void>;
  findEndpoint(options: { id: string; merchantId?: string; mode?: Mode }): Promise<WebhookEndpoint | null>;
  /** The merchant's endpoints in that mode (all, or only enabled ones), oldest first. */
  listEndpoints(options: { merchantId: string; mode: Mode; enabledOnly?: boolean }): Promise<WebhookEndpoint[]>;
  updateEndpoint(options: { id: string; patch: WebhookEndpointPatch; updatedAt: string }): Promise<WebhookEndpoint | null>;
  /** Endpoints failing (failingSince set) or disabled with a reason, by merchant then id; one merchant's or all, one mode's or any. */
  listTroubledEndpoints(options: { merchantId?: string; mode?: Mode; limit: number }): Promise<WebhookEndpoint[]>;
  deleteEndpoint(options: { id: string; merchantId: string; mode: Mode }): Promise<boolean>;
  /** Pending deliveries of one endpoint, counted up to `limit` (the backlog bound needs no more). */
  countPending(options: { endpointId: string; limit: number }): Promise<number>;
  /** Deliveries written outside an order transition (courier positions). */
  insertDeliveries(deliveries: WebhookDelivery[]): Promise<void>;
  /**
   * Leases up to `limit` pending deliveries due at `now` whose lease is free or expired: sets
   * leaseOwner/leaseUntil atomically, so two workers never hold the same delivery at once. Leases
   * are on the store's clock (leaseUntil = the store's now + leaseMs; expired when the store's now
   * reaches it), never on a node's. Fair share: a merchant's (an endpoint's) deliveries already
   * leased and unexpired count against `merchantConcurrency` (`endpointConcurrency`), and the claim
   * takes the merchants' oldest due deliveries in turns (each merchant's first, then each one's
   * second, …), so one merchant's backlog never fills a claim while another has due work.
   */
  claimDue(options: {
    owner: string;
    now: string;
    leaseMs: number;
    limit: number;
    merchantConcurrency?: number;
    endpointConcurrency?: number;
  }): Promise<WebhookDelivery[]>;
  /**
   * Records an attempt and its outcome, only while `owner` still holds the lease (else false):
   * delivered, failed for good, or pending again at nextAttemptAt. The lease is released.
   */
  completeAttempt(options: {
    id: string;
    owner: string;
    attempt: WebhookAttempt;
    outcome: { status: 'delivered' | 'failed' | 'pending'; nextAttemptAt: string | null };
  }): Promise<boolean>;
  findDelivery(options: { id: string; merchantId: string; mode: Mode }): Promise<WebhookDelivery | null>;
  listDeliveries(options: {
    merchantId: string;
    mode: Mode;
    endpointId?: string;
    status?: WebhookDelivery['status'];
    createdFrom?: string;
    createdTo?: string;
    after?: string;
    limit: number;
  }): Promise<WebhookDelivery[]>;
  /** Every attempt in the order made (numbers restart after a redelivery). */
  listAttempts(deliveryId: string): Promise<WebhookAttempt[]>;
  /**
   * Retention: deletes deliveries created before `createdBefore`, whatever their status, with their
   * attempts; at most `limit` per call. Returns how many deliveries went.
   */
  prune(options: { createdBefore: string; limit: number }): Promise<number>;
  /** Makes deliveries pending again, due now (attempt counts restart); returns how many. */
  requeue(options: { merchantId: string; mode: Mode; ids?: string[]; status?: 'failed'; createdFrom?: string; createdTo?: string; now: string }): Promise<number>;
}

/**
 * Named leases: work that must run on one node at a time (the dispatch reconciler, the sandbox
 * simulator). Expiry is on the store's clock (MongoDB's $$NOW, SQLite's own time), never on a node's.
 */
export interface LeaseRepository {
  /**
   * Takes or renews the lease for `owner` until the store's now + ttlMs. True when `owner` holds it
   * now (it was free, expired or already its own); false while another owner holds it unexpired.
   */
  acquire(options: { name: string; owner: string; ttlMs: number }): Promise<boolean>;
  /** Gives the lease up, only when `owner` holds it (another node may take it at once). */
  release(options: { name: string; owner: string }): Promise<void>;
  /**
   * A rate slot shared by every node (the courier-location throttle): true, and the slot is taken
   * until at + intervalMs, when no slot of this name runs past `at`; false otherwise. Times are
   * the event's (`at`), so a slot follows the events it throttles; one atomic write.
   */
  takeSlot(options: { name: string; at: string; intervalMs: number }): Promise<boolean>;
  /** Removes leases and slots that ran out before `before` (the store's clock minus a margin); returns how many. */
  pruneExpired(options: { olderThanMs: number }): Promise<number>;
}

/** Quotes kept for binding (POST /orders with quote_id), per merchant and mode. */
export interface QuoteRepository {
  insert(quote: StoredQuote): Promise<void>;
  /** The quote, only within its merchant and mode; expired ones too, until pruned (the caller compares expiresAt). */
  find(options: { id: string; merchantId: string; mode: Mode }): Promise<StoredQuote | null>;
  /** Retention: deletes quotes that expired before `expiredBefore`, at most `limit` per call; returns how many. */
  prune(options: { expiredBefore: string; limit: number }): Promise<number>;
}

/**
 * The record of one idempotent write (issue #17 item 5), keyed by owner (merchant or courier),
 * mode, operation and the client's key. Claimed before the write runs (outcome null), completed
 * with the answer afterwards.
 */
export interface IdempotentWriteRecord {
  ownerId: string;
  mode: Mode;
  operation: string;
  key: string;
  /** Hash of the parsed request: the same key with another request is refused. */
  fingerprint: string;
  /** The claimant's token: only it completes or releases the claim. */
  token: string;
  /** The stored answer (JSON), or null while the write runs. */
  outcome: string | null;
  createdAt: string;
  /** While outcome is null: once passed, the claim is abandoned (its node died) and may be taken over. */
  lockedUntil: string;
  expiresAt: string;
}

export type IdempotentWriteKey = Pick<IdempotentWriteRecord, 'ownerId' | 'mode' | 'operation' | 'key'>;

export interface IdempotentWriteRepository {
  /**
   * Inserts the claim, in one atomic step: of concurrent claims of a key exactly one wins. A record
   * that has expired (expiresAt <= now) or an abandoned claim (outcome null, lockedUntil <= now) is
   * replaced; any other existing record is returned instead.
   */
  claim(record: IdempotentWriteRecord, now: string): Promise<{ claimed: true } | { claimed: false; existing: IdempotentWriteRecord }>;
  /** Stores the answer, only while `token` holds the claim; false otherwise. */
  complete(options: IdempotentWriteKey & { token: string; outcome: string }): Promise<boolean>;
  /** Drops the claim (the write failed without an answer worth keeping), only while `token` holds it. */
  release(options: IdempotentWriteKey & { token: string }): Promise<void>;
  /** Retention: deletes records that expired before `before`, at most `limit`; returns how many. */
  prune(options: { before: string; limit: number }): Promise<number>;
}

/** One event of a merchant's feed (issue #17 item 6): the payload webhooks carry in the `event` shape. */
export interface FeedEvent {
  id: string;
  merchantId: string;
  mode: Mode;
  /** 1, 2, 3… per merchant and mode, without gaps, in commit order. */
  position: number;
  type: WebhookEventType;
  orderId: string | null;
  /** The order's sequence number at this event (null for batch events). */
  sequence: number | null;
  /** The payload as JSON text, exactly as built at the change. */
  body: string;
  at: string;
}

export type NewFeedEvent = Omit<FeedEvent, 'position'>;

export interface EventFeedRepository {
  /** The merchant's events in that mode with a position above `after`, in position order, at most `limit`. */
  list(options: { merchantId: string; mode: Mode; after: number; limit: number }): Promise<FeedEvent[]>;
  /** The highest position given out for the merchant and mode (0 when none). */
  lastPosition(options: { merchantId: string; mode: Mode }): Promise<number>;
  /** Retention: deletes events from before `createdBefore`, at most `limit`; returns how many. */
  prune(options: { createdBefore: string; limit: number }): Promise<number>;
}

/** The recipient-notification outbox: one row per (order, moment, channel), leased by the workers. */
export interface NotificationRepository {
  /** Inserts outside an order change; a row whose (order, moment, channel) exists is skipped. Returns how many were inserted. */
  insert(notifications: Notification[]): Promise<number>;
  /**
   * Leases up to `limit` pending notifications due at `now` whose lease is free or expired, oldest
   * due first: sets leaseOwner/leaseUntil atomically (leaseUntil on the store's clock), so two
   * workers never hold the same one. Sandboxed rows are never claimed.
   */
  claimDue(options: { owner: string; now: string; leaseMs: number; limit: number }): Promise<Notification[]>;
  /**
   * Records an attempt, only while `owner` holds the lease (else false): sent, failed for good, or
   * pending again at nextAttemptAt. The lease is released.
   */
  complete(options: {
    id: string;
    owner: string;
    attempts: number;
    /** `blocked`: refused by the sending budget without an attempt (`blockReason` says why). */
    status: 'sent' | 'failed' | 'pending' | 'blocked';
    error: string | null;
    at: string;
    nextAttemptAt: string | null;
    blockReason?: NotificationBlockReason;
  }): Promise<boolean>;
  /** The merchant's notifications in that mode, newest first (by id); `after` is the last id of the previous page. */
  list(options: { merchantId: string; mode: Mode; orderId?: string; after?: string; limit: number }): Promise<Notification[]>;
  /** Retention: deletes notifications created before `createdBefore`, at most `limit`; returns how many. */
  prune(options: { createdBefore: string; limit: number }): Promise<number>;
}
