import { Redis } from 'ioredis';
import type { Config } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { resolveMasterKey } from './adapters/master-key.js';
import { createMemoryRateLimiter, createRedisRateLimiter } from './adapters/rate-limiter.js';
import { openSqliteStore } from './adapters/sqlite/open-store.js';
import { createMongoStore } from './adapters/mongo/store.js';
import { withCoalescedLocations, type CoalescedLocations } from './adapters/coalesced-locations.js';
import { MasterKeyMismatchError, verifyMasterKey } from './domain/master-key-check.js';
import { createAdminService } from './domain/admin.js';
import { createAuthService } from './domain/auth.js';
import { createFrontDoor } from './domain/front-door.js';
import { createCourierSessionService } from './domain/courier-sessions.js';
import { createProofService } from './domain/proofs/service.js';
import { createProofUrlSigner, PROOF_WEBHOOK_URL_TTL_MS } from './domain/proofs/signed-urls.js';
import { createMemberService } from './domain/members/service.js';
import { createOperatorService } from './domain/operators/service.js';
import { createAuditLog } from './domain/operators/audit.js';
import { createAuditedAdmin } from './domain/operators/audited-admin.js';
import { createCodService } from './domain/cod.js';
import { createPasswordHasher } from './domain/members/passwords.js';
import { createScryptWorkers } from './adapters/scrypt-workers.js';
import { reencodeWithSharp } from './adapters/sharp-images.js';
import { createMerchantCredentialService } from './domain/merchant-credentials.js';
import { createEdgeDoor, type EdgeDoor } from './edge/door.js';
import { createSecretBox } from './domain/credentials.js';
import { createHealthService, type DependencyProbe } from './domain/health.js';
import { createMerchantService } from './domain/merchants.js';
import { createQuoteService } from './domain/quotes.js';
import { createIntegrationService } from './domain/integrations/service.js';
import { createGazetteerGeocoder, loadComunas } from './adapters/geocoder/gazetteer.js';
import { createNominatimGeocoder } from './adapters/geocoder/nominatim.js';
import type { Geocoder } from './ports/geocoder.js';
import { systemClock, type Clock } from './ports/clock.js';
import { createUlidSource, type IdSource } from './ports/ids.js';
import type { RateLimiter } from './ports/rate-limiter.js';
import type { Store } from './ports/store.js';
import type { EventBus } from './ports/event-bus.js';
import type { CourierGeoIndex } from './ports/geo-index.js';
import { createMemoryEventBus } from './adapters/event-bus/memory.js';
import { createRedisEventBus } from './adapters/event-bus/redis.js';
import { createMemoryGeoIndex } from './adapters/geo-index/memory.js';
import { createRedisGeoIndex } from './adapters/geo-index/redis.js';
import { withGeoIndexFallback } from './adapters/geo-index/resilient.js';
import { createDispatchService } from './domain/dispatch.js';
import { createDispatchReconciler } from './domain/reconciler.js';
import { createDispatchPlanner } from './domain/dispatch/planner.js';
import { formBundles } from './domain/dispatch/bundles.js';
import { isHeldForRound } from './domain/dispatch/policy.js';
import type { Order } from './domain/types.js';
import { distanceMeters } from './domain/geo.js';
import { vehicleTariff } from './domain/tariffs.js';
import { createRetention } from './domain/retention.js';
import { createOrderService } from './domain/orders/service.js';
import { createOpsNow } from './domain/operators/now.js';
import { createOperatorOrders } from './domain/orders/operator-orders.js';
import { createComunaZones } from './domain/orders/comuna-zones.js';
import { createDeliveryService } from './domain/orders/delivery.js';
import { createFailedAttemptService } from './domain/orders/failed-attempts.js';
import { createTipService } from './domain/orders/tips.js';
import { createCourierService } from './domain/couriers.js';
import { withCourierChanges } from './domain/courier-changes.js';
import { createLiveEtaService } from './domain/eta/live-eta.js';
import { createBatchService } from './domain/batches.js';
import { createTrackingService } from './domain/tracking.js';
import { createTrackingLinks } from './domain/tracking-links.js';
import { createWatchFanOut, type WatchFanOut } from './domain/watch/fan-out.js';
import { createOrderWatch, createWebhookWorkWatch } from './domain/watch/orders.js';
import { createCourierJobWatch } from './domain/watch/courier-job.js';
import { createFleetWatch } from './domain/watch/fleet.js';
import { createSandboxService } from './domain/sandbox.js';
import { createSandboxRunService, RUN_DELIVERIES_HELD_UNTIL, type SandboxRuntime } from './domain/sandbox-runs.js';
import { createOrderTransitions } from './domain/orders/transitions.js';
import { createWebhookOutbox } from './domain/webhooks/outbox.js';
import { createNotificationBudget, type NotificationRefusal } from './domain/notifications/budget.js';
import { createNotificationOutbox } from './domain/notifications/outbox.js';
import { createNotificationService } from './domain/notifications/service.js';
import { createNotificationWorker } from './domain/notifications/worker.js';
import { createNotifier } from './adapters/notify/notifier.js';
import { createIdempotencyService } from './domain/idempotency.js';
import { createEventFeed } from './domain/webhooks/feed.js';
import { createWebhookEndpointService } from './domain/webhooks/endpoints.js';
import { createWebhookDeliveryLog } from './domain/webhooks/delivery-log.js';
import { createWebhookWorker } from './domain/webhooks/worker.js';
import { createSigningKeyService } from './domain/webhooks/signing-keys.js';
import { createHttpWebhookSender } from './adapters/http/webhook-sender.js';

export const SERVICE_NAME = 'express-delivery';
export const API_VERSION = 'v1.2.0';

export interface Container {
  config: Config;
  logger: Logger;
  clock: Clock;
  ids: IdSource;
  store: Store;
  /** The batching writer of courier positions (null when POSITION_FLUSH_MS=0). */
  positions: CoalescedLocations | null;
  redis: Redis | null;
  rateLimiter: RateLimiter;
  bus: EventBus;
  geoIndex: CourierGeoIndex;
  /** The node's one indexed bus subscription behind every watch (services use it; tests read its sizes). */
  fanOut: WatchFanOut;
  services: Services;
  /** The edge half of the front door (client address, credentials, socket slots), shared by every entrance. */
  door: EdgeDoor;
  close(): Promise<void>;
}

export type Services = ReturnType<typeof buildServices>;

export interface ContainerOverrides {
  logger?: Logger;
  clock?: Clock;
  ids?: IdSource;
}

/** The composition root: configuration in, a typed object of adapters and domain services out. */
export async function buildContainer(config: Config, overrides: ContainerOverrides = {}): Promise<Container> {
  const logger = overrides.logger ?? createLogger({ level: config.logLevel });
  const clock = overrides.clock ?? systemClock;
  const ids = overrides.ids ?? createUlidSource();
  const masterKey = resolveMasterKey({ configured: config.masterKey, dataDir: config.dataDir, distributed: config.storeKind === 'mongodb' });
  const backingStore: Store = config.mongodbUrl
    ? await createMongoStore({ url: config.mongodbUrl, dbName: config.mongodbDb, operationTimeoutMs: config.storeTimeoutMs, webhookRetentionMs: config.retention.webhookMs })
    : await openSqliteStore({ dataDir: config.dataDir, lockWaitMs: config.storeTimeoutMs, ...config.storeOpen, logger });
  const positions = config.positionFlushMs > 0
    ? withCoalescedLocations(backingStore, { flushMs: config.positionFlushMs, onFlushError: (error) => logger.warn({ err: error.message }, 'courier positions not written; retried at the next flush') })
    : null;
  try {
    await verifyMasterKey({
      store: backingStore,
      masterKey,
      keySource: config.masterKey ? 'MASTER_KEY' : `${config.dataDir}/master.key`,
      storeName: config.mongodbUrl ? `MongoDB database ${config.mongodbDb}` : `${config.dataDir}`,
    });
  } catch (error) {
    if (error instanceof MasterKeyMismatchError) {
      await backingStore.close();
      throw error;
    }
    // An unreachable store is no proof of a wrong key: the node starts degraded, as it would anyway.
    logger.warn({ err: (error as Error).message }, 'master key not checked against the stored secrets: store unavailable');
  }
  const redis = config.redisUrl ? connectRedis(config.redisUrl, logger) : null;
  if (redis) await waitUntilReady(redis, 3000);
  const rateLimiter = redis
    ? createRedisRateLimiter({ redis, keyPrefix: 'rl' })
    : createMemoryRateLimiter({ keyPrefix: 'rl' });

  const probes: DependencyProbe[] = [{ name: 'store', optional: false, check: () => backingStore.ping() }];
  if (redis) probes.push({ name: 'redis', optional: true, check: async () => void (await redis.ping()) });

  const gazetteer = createGazetteerGeocoder();
  const geocoder: Geocoder = config.geocoderUrl
    ? createNominatimGeocoder({ baseUrl: config.geocoderUrl, fallback: gazetteer, logger })
    : gazetteer;

  const redisBus = config.redisUrl ? createRedisEventBus({ url: config.redisUrl, channel: 'exd:bus', logger, pingMs: config.busPingMs }) : null;
  const bus: EventBus = redisBus ?? createMemoryEventBus();
  if (redisBus) {
    probes.push({
      name: 'bus',
      optional: true,
      check: async () => {
        if (!redisBus.stats().connected) throw new Error('event bus not subscribed');
      },
    });
  }
  // Every courier, order and batch write is published (courier.changed): courier snapshots on every node hear of it.
  const store = withCourierChanges(positions?.store ?? backingStore, { bus, now: () => clock.now().toISOString() });
  const fanOut = createWatchFanOut({ bus });
  const onWatchError = (error: Error, orderId: string) => logger.warn({ err: error.message, orderId }, 'tracking snapshot failed');
  const geoIndex = redis ? withGeoIndexFallback(createRedisGeoIndex({ redis, keyPrefix: 'geo:couriers' }), logger) : createMemoryGeoIndex();

  const services = buildServices({ fanOut, onWatchError, config, store, clock, ids, masterKey, probes, geocoder, bus, geoIndex, rateLimiter, logger });
  await services.dispatch.restoreCourierIndex().catch((error: unknown) => logger.warn({ err: (error as Error).message }, 'courier index not restored'));
  const door = createEdgeDoor({ frontDoor: services.frontDoor, trustProxy: config.trustProxy, caps: config.caps });
  return {
    config, logger, clock, ids, store, positions, redis, rateLimiter, bus, geoIndex, fanOut, services, door,
    async close() {
      fanOut.close();
      services.frontDoor.close();
      await services.passwordWorkers.close();
      services.notifier.close();
      await bus.close();
      await store.close();
      if (redis) redis.disconnect();
    },
  };
}

function buildServices(deps: {
  config: Config;
  store: Store;
  clock: Clock;
  ids: IdSource;
  masterKey: Buffer;
  probes: DependencyProbe[];
  geocoder: Geocoder;
  bus: EventBus;
  geoIndex: CourierGeoIndex;
  fanOut: WatchFanOut;
  onWatchError: (error: Error, orderId: string) => void;
  rateLimiter: RateLimiter;
  logger: Logger;
}) {
  const { config, store, clock, ids, bus, geoIndex, geocoder } = deps;
  const auth = createAuthService({ store, adminToken: config.adminToken, cacheMs: config.credentialCacheMs, bus });
  /** Every idempotent write command runs under its caller's key through this (src/domain/idempotency.ts). */
  const idempotency = createIdempotencyService({ store, clock, ids });
  const { tariff } = config;
  const secretBox = createSecretBox(deps.masterKey);
  const sender = createHttpWebhookSender();
  const quotes = createQuoteService({ geocoder, tariff, clock, store, ids });
  const trackingLinks = createTrackingLinks({ masterKey: deps.masterKey, publicBaseUrl: () => config.publicBaseUrl });
  const proofUrls = createProofUrlSigner({ masterKey: deps.masterKey, clock, publicBaseUrl: () => config.publicBaseUrl });
  const { retentionMs: proofRetentionMs, ...proofLimits } = config.proofs;
  const proofs = createProofService({ store, clock, ids, signer: proofUrls, reencode: reencodeWithSharp, limits: proofLimits, retentionMs: proofRetentionMs });
  const outbox = createWebhookOutbox({
    store, clock, ids, publicBaseUrl: () => config.publicBaseUrl, trackingLinks, backlogMax: config.webhooks.backlogMax,
    proofUrl: (id) => proofUrls.sign(id, PROOF_WEBHOOK_URL_TTL_MS),
  });
  const notificationRefusals = createNotificationRefusals(deps.logger);
  const notificationOutbox = createNotificationOutbox({ store, clock, ids, trackingLinks, holdMs: config.notifications.holdMs, refused: notificationRefusals.emit });
  const notifier = createNotifier(config.notifications.providers);
  const transitions = createOrderTransitions({ store, bus, outbox, clock, ids, notifications: notificationOutbox });
  const { policy } = config.dispatch;
  const dispatch = createDispatchService({
    store, geoIndex, transitions, clock, tariff, sandboxSpeed: config.sandbox.speed, staleAfterMs: config.dispatch.staleAfterMs,
    heldForRound: (order) => isHeldForRound(policy, order),
  });
  const orders = createOrderService({ store, geocoder, quotes, dispatch, bus, transitions, outbox, notifications: notificationOutbox, clock, ids, tariff, sandboxSpeed: config.sandbox.speed, idempotency });
  const batches = createBatchService({ store, dispatch, transitions, outbox, bus, clock, ids, tariff, idempotency });
  const planner = createDispatchPlanner({
    store, dispatch, clock, policy, vehicles: tariff.vehicles.map((v) => v.type),
    ...(policy.bundle.enabled && {
      commitBundle: batches.commitBundle,
      formJobs: (round: { orders: Order[]; now: number }) => formBundles({
        orders: round.orders, policy: policy.bundle, now: round.now, stopMs: policy.handoverMs,
        travelMins: (from, to, order) => Math.ceil((distanceMeters(from, to) * tariff.detour_factor) / 1000 / (vehicleTariff(tariff, order.vehicleType)?.speed_kmh ?? 20) * 60),
      }),
    }),
  });
  const delivery = createDeliveryService({ orders, transitions, clock, ids, store, proofs, codLimits: config.cod, idempotency });
  const failedAttempts = createFailedAttemptService({ orders, transitions, clock, ids, tariff, proofs });
  const liveEta = createLiveEtaService({ store, outbox, tariff, sandboxSpeed: config.sandbox.speed });
  const couriers = createCourierService({ store, geoIndex, dispatch, delivery, failedAttempts, transitions, outbox, liveEta, bus, clock, plausibility: config.positionPlausibility, idempotency });
  const watchers = createOrderWatch({ fanOut: deps.fanOut, store, clock, getOrder: orders.getOrder });
  const { concurrency, queueLimit, niceness } = config.passwordHashing;
  const passwordWorkers = createScryptWorkers({ threads: concurrency, niceness });
  const passwords = createPasswordHasher({ derive: passwordWorkers.derive, concurrency, queueLimit });
  const members = createMemberService({ store, clock, ids, passwords, policy: config.members, publicBaseUrl: () => config.publicBaseUrl });
  const signingKeys = createSigningKeyService({ store, secretBox, clock });
    // Operators sign in under the members' rules (links, sessions, cap, expiry): one policy.
  const operators = createOperatorService({ store, clock, ids, passwords, policy: config.members, publicBaseUrl: () => config.publicBaseUrl });
  const audit = createAuditLog({ store, clock, ids });
  const courierSessions = createCourierSessionService({ store, clock, policy: config.courierSessions, publicBaseUrl: () => config.publicBaseUrl });
  const admin = createAdminService({ store, clock, ids, secretBox, couriers, courierSessions, credentialsChanged: auth.credentialsChanged });
  const operatorOrders = createOperatorOrders({ store, geoIndex, dispatch, transitions, orders, clock, comunas: createComunaZones(loadComunas()) });
  const cod = createCodService({ store, clock, ids });
  return {
    courierSessions,
    proofs,
    auth,
    members,
    operators,
    audit,
    /** The admin operations with an actor bound (`as(actor)`): each one recorded in the audit log. */
    auditedAdmin: createAuditedAdmin({ admin, members, operators, orders: operatorOrders, cod, audit, store, idempotency }),
    /** Cash on delivery (issue #30): the merchant's report and a courier's cash; settlements through auditedAdmin. */
    cod,
    /** Every merchant's orders for operators (issue #29): reads here, overrides through auditedAdmin. */
    operatorOrders,
    /** The operators' home (issue #38): late and unassigned orders, couriers on duty, failing webhooks, in one mode. */
    opsNow: createOpsNow({ store, clock }),
    /** The operators' live fleet: every courier's position and status, at most once per courier per second. */
    fleet: createFleetWatch({ fanOut: deps.fanOut, store, now: () => clock.now().toISOString() }),
    /** Every password hash of the node, bounded (stats: running, waiting, computed). */
    passwords,
    passwordWorkers,
    /** A merchant's own API keys and signing secret (owner role), over the admin service's operations. */
    merchantCredentials: createMerchantCredentialService({ admin, store }),
    frontDoor: createFrontDoor({
      auth,
      members,
      operators,
      courierSessions,
      rateLimiter: deps.rateLimiter,
      log: deps.logger,
      limits: {
        merchantPerMin: config.rateLimitPerMin,
        courierPerMin: config.courierRateLimitPerMin,
        anonymousPerMin: config.publicRateLimitPerMin,
        trackingLinkPerMin: config.trackingLinkRateLimitPerMin,
        adminFailures: config.adminLockout.failures,
        adminLockoutSeconds: config.adminLockout.seconds,
        recheckMs: config.credentialRecheckMs,
        login: { perEmail: config.loginLockout.perEmail, perAddress: config.loginLockout.perAddress, lockoutSeconds: config.loginLockout.seconds },
      },
    }),
    merchants: createMerchantService({ store, clock, secretBox, credentialsChanged: auth.credentialsChanged, idempotency }),
    admin,
    quotes,
    integrations: createIntegrationService({ store, quotes, orders, secretBox, clock }),
    dispatch,
    orders: Object.assign(orders, watchers.orders),
    delivery,
    /** Tips (issue #30 item 4): added by the merchant, in the ledger, and the courier's earnings. */
    tips: createTipService({ store, outbox, clock, ids, getOrder: orders.getOrder, idempotency }),
    couriers: Object.assign(couriers, watchers.couriers, createCourierJobWatch({ fanOut: deps.fanOut, store, activeOrders: couriers.activeOrders })),
    batches,
    /** The periodic dispatch round (issue #37): one node at a time, by lease (dispatch-round-runner.ts). */
    planner,
    reconciler: createDispatchReconciler({ store, geoIndex, dispatch, batches, clock, graceMs: config.dispatch.graceMs, vehicles: tariff.vehicles.map((v) => v.type) }),
    retention: createRetention({ store, clock, webhookMs: config.retention.webhookMs, orderEventsMs: config.retention.orderEventsMs, notificationMs: config.retention.notificationMs, auditMs: config.retention.auditMs, pruneProofs: proofs.prune, sweepUnusedProofs: proofs.sweepUnused }),
    /** Recipient notifications: the merchant's settings and outbox; the worker that sends live ones. */
    notifications: createNotificationService({ store, clock, configuredChannels: notifier.channels, credentialsChanged: auth.credentialsChanged }),
    notificationWorker: createNotificationWorker({
      store, notifier, clock, config: config.notifications,
      budget: createNotificationBudget({ limiter: deps.rateLimiter, caps: config.notifications.caps }),
    }),
    /** Live messages refused by the sending budget: each logged (warn, the number masked) and told to listeners (/metrics). */
    notificationRefusals,
    notifier,
    /** Capability tracking links: made and checked with a key derived from the master key. */
    trackingLinks,
    tracking: createTrackingService({ store, geocoder, fanOut: deps.fanOut, callRelayNumber: config.callRelayNumber, onSnapshotError: deps.onWatchError }),
    sandbox: createSandboxService({ store, couriers, dispatch, orders, clock, ids, tariff, idempotency }),
    sandboxRuns: createSandboxRunService({
      store, secretBox, tariff, defaultSpeed: config.sandbox.speed,
      runtime: (run) => buildRunRuntime({ config, store, bus, geocoder, clock: run.clock, ids: run.ids }),
      getOrder: orders.getOrder,
      idempotency,
    }),
    webhookEndpoints: createWebhookEndpointService({ store, sender, clock, ids, sandboxReach: config.webhooks.sandboxReach, idempotency }),
    /** The webhook signing keys in force (secrets and Ed25519 key pairs) and the published public keys. */
    signingKeys,
    webhookDeliveries: createWebhookDeliveryLog({ store, clock, rateLimiter: deps.rateLimiter, idempotency }),
    webhookWorker: Object.assign(createWebhookWorker({ store, sender, signingKeys, clock, ids, config: config.webhooks }), createWebhookWorkWatch({ fanOut: deps.fanOut })),
    events: createEventFeed({ store }),
    health: createHealthService({ probes: deps.probes, version: API_VERSION, service: SERVICE_NAME, now: () => clock.now() }),
  };
}

/**
 * The order services of one sandbox run (issue #31): over the shared store and bus, with the run's
 * virtual clock and seeded ids, a geo index of its own (its dispatch sees only the run's couriers),
 * deliveries held until the run ends, and couriers that are never offered other work when freed.
 */
function buildRunRuntime(deps: { config: Config; store: Store; bus: EventBus; geocoder: Geocoder; clock: Clock; ids: IdSource }): SandboxRuntime {
  const { config, store, bus, geocoder, clock, ids } = deps;
  const { tariff } = config;
  const geoIndex = createMemoryGeoIndex();
  const quotes = createQuoteService({ geocoder, tariff, clock, store, ids });
  const outbox = createWebhookOutbox({ store, clock, ids, publicBaseUrl: () => config.publicBaseUrl, backlogMax: config.webhooks.backlogMax, dueAt: () => RUN_DELIVERIES_HELD_UNTIL });
  const transitions = createOrderTransitions({ store, bus, outbox, clock, ids });
  const shared = createDispatchService({ store, geoIndex, transitions, clock, tariff, sandboxSpeed: config.sandbox.speed, staleAfterMs: config.dispatch.staleAfterMs });
  const dispatch: typeof shared = Object.assign({}, shared, {
    offerWork: async () => {},
    releaseCourier: async (options: { courierId: string; jobId: string }) => {
      await store.couriers.setStatus({ id: options.courierId, status: 'available', from: ['busy'], fromJobId: options.jobId, job: null, updatedAt: clock.now().toISOString() });
    },
  });
  // A run's commands never carry a caller's key; its own records would follow its virtual clock.
  const idempotency = createIdempotencyService({ store, clock, ids });
  const orders = createOrderService({ store, geocoder, quotes, dispatch, bus, transitions, outbox, clock, ids, tariff, sandboxSpeed: config.sandbox.speed, idempotency });
  const delivery = createDeliveryService({ orders, transitions, clock, ids, store, codLimits: config.cod, idempotency });
  const failedAttempts = createFailedAttemptService({ orders, transitions, clock, ids, tariff });
  const liveEta = createLiveEtaService({ store, outbox, tariff, sandboxSpeed: config.sandbox.speed });
  const couriers = createCourierService({ store, geoIndex, dispatch, delivery, failedAttempts, transitions, outbox, liveEta, bus, clock, idempotency });
  return { orders, couriers, dispatch, geoIndex };
}

function connectRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    // Commands fail fast while Redis is away instead of queueing without bound; callers degrade.
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    // A Redis that stops answering without closing (frozen, partitioned) fails commands too.
    commandTimeout: 500,
    connectTimeout: 1000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  let down = false;
  redis.on('error', (error) => {
    if (!down) logger.warn({ err: error.message }, 'redis unavailable; running degraded');
    down = true;
  });
  redis.on('ready', () => {
    if (down) logger.info('redis reconnected');
    down = false;
  });
  return redis;
}

/** Gives Redis a moment at boot so shared rate limits start shared; after that the node starts degraded. */
async function waitUntilReady(redis: Redis, ms: number): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    redis.once('ready', done);
    function done() {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    }
  });
}

/**
 * Where refused live messages go: one warn-level line each, `notification blocked` with
 * `alert: "notification_blocked"` (the line to alert on; the number masked, never the message),
 * then every listener (the app's /metrics counter).
 */
function createNotificationRefusals(logger: Logger) {
  const listeners = new Set<(refusal: NotificationRefusal) => void>();
  return {
    emit(refusal: NotificationRefusal) {
      logger.warn({ alert: 'notification_blocked', ...refusal }, 'notification blocked');
      for (const listener of listeners) listener(refusal);
    },
    listen(listener: (refusal: NotificationRefusal) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
