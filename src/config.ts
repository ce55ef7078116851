import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { parseTrustProxy, type TrustProxy } from './edge/client-address.js';
import type { DispatchPolicy } from './domain/dispatch/policy.js';
import { DEFAULT_SANTIAGO_TARIFF, tariffSchema, type Tariff } from './domain/tariffs.js';
import { parseMaxSpeeds, type PositionPlausibility } from './domain/position-plausibility.js';
import { phoneSchema } from './domain/phone.js';
import type { WebhookReach } from './ports/webhook-sender.js';
import type { NotifierConfig } from './adapters/notify/notifier.js';

const optionalString = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional();

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  MONGODB_URL: optionalString.pipe(z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// URL').optional()),
  MONGODB_DB: z.string().min(1).default('express_delivery'),
  REDIS_URL: optionalString.pipe(z.string().regex(/^rediss?:\/\//, 'must be a redis:// URL').optional()),
  ADMIN_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  MASTER_KEY: optionalString.pipe(
    z
      .string()
      .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded')
      .optional(),
  ),
  PUBLIC_BASE_URL: optionalString.pipe(z.url().optional()),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).default(120),
  PUBLIC_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).default(60),
  TRACKING_LINK_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).default(30),
  COURIER_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).default(240),
  /** Courier positions are written in batches this often (0: each report is its own write). */
  POSITION_FLUSH_MS: z.coerce.number().int().min(0).max(10_000).default(1000),
  /**
   * One store call's deadline: MongoDB calls, and in embedded mode how long a write waits for
   * another process's SQLite write lock (off the event loop). Past it the request answers 503.
   */
  STORE_TIMEOUT_MS: z.coerce.number().int().min(200).max(30_000).default(1500),
  /**
   * Courier positions whose implied speed since the last accepted fix exceeds the vehicle's top speed
   * are refused (422 IMPLAUSIBLE_POSITION): `vehicle:km/h` pairs over the defaults
   * bike:45,motorcycle:120,car:150,van:130, or `off`.
   */
  POSITION_MAX_SPEED_KMH: z.string().default(''),
  /** GPS jitter allowed between two fixes, whatever the time between them (metres). */
  POSITION_NOISE_M: z.coerce.number().min(0).max(5000).default(150),
  /** After this long without an accepted fix, any position is believed (seconds). */
  POSITION_RESET_AFTER_S: z.coerce.number().int().min(1).max(86_400).default(600),
  /** A courier without a position report for this long is not dispatchable and leaves the geo index. */
  COURIER_STALE_AFTER_MS: z.coerce.number().int().min(1000).max(86_400_000).default(120_000),
  /** How often the dispatch reconciler runs (on one node at a time, by lease). */
  DISPATCH_RECONCILE_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
  /** Dispatch policy (issue #37; README "Dispatch policy"): `planned` (periodic optimal rounds, commitment at the ready time) or `greedy` (nearest courier at creation). */
  DISPATCH_POLICY: z.enum(['planned', 'greedy']).default('greedy'),
  /** How often the dispatch round runs (on one node at a time, by lease). */
  DISPATCH_ROUND_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  /** A courier is committed this long before the latest departure that reaches the pickup by the ready time. */
  DISPATCH_COMMIT_SLACK_S: z.coerce.number().int().min(0).max(3600).default(480),
  /** Orders ready within this many minutes are in a round. */
  DISPATCH_HORIZON_MIN: z.coerce.number().int().min(1).max(240).default(45),
  /** Time at the pickup counter; no courier is given a pickup it cannot finish before its shift ends. */
  DISPATCH_HANDOVER_S: z.coerce.number().int().min(0).max(3600).default(120),
  /** Dynamic bundling of one merchant's orders into one batch (on/off, ready times within, orders per bundle, longest detour). */
  /** Busy couriers about to finish take part in the round (an order matched to one waits for it). */
  DISPATCH_LOOK_AHEAD: z.enum(['on', 'off']).default('off'),
  DISPATCH_BUNDLING: z.enum(['on', 'off']).default('on'),
  DISPATCH_BUNDLE_READY_WITHIN_S: z.coerce.number().int().min(0).max(3600).default(300),
  DISPATCH_BUNDLE_MAX_ORDERS: z.coerce.number().int().min(2).max(8).default(3),
  DISPATCH_BUNDLE_MAX_DETOUR: z.coerce.number().min(1).max(3).default(1.3),
  TRACKING_HEARTBEAT_MS: z.coerce.number().int().min(50).max(300_000).default(30_000),
  TRACKING_MAX_SOCKETS: z.coerce.number().int().min(1).default(20_000),
  TRUST_PROXY: z.string().optional(),
  MAX_SOCKETS_PER_ADDRESS: z.coerce.number().int().min(1).default(20),
  MAX_SOCKETS_PER_CREDENTIAL: z.coerce.number().int().min(1).default(100),
  MAX_SUBSCRIPTIONS_PER_SOCKET: z.coerce.number().int().min(1).default(10),
  MAX_SUBSCRIPTIONS_PER_AUTHENTICATED_SOCKET: z.coerce.number().int().min(1).default(100),
  ADMIN_MAX_FAILURES: z.coerce.number().int().min(1).default(5),
  ADMIN_LOCKOUT_SECONDS: z.coerce.number().int().min(1).default(900),
  /** Team members (issue #19): set-password links, console sessions and sign-in lockouts. */
  MEMBER_INVITATION_TTL_HOURS: z.coerce.number().positive().max(24 * 30).default(72),
  MEMBER_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(7 * 24 * 60).default(120),
  MEMBER_SESSION_MAX_HOURS: z.coerce.number().positive().max(24 * 30).default(12),
  MEMBER_MAX_SESSIONS: z.coerce.number().int().min(1).max(1000).default(10),
  /** The courier app (issue #27): its sessions, and the proofs of delivery it uploads. */
  COURIER_SESSION_MAX_HOURS: z.coerce.number().positive().max(24 * 90).default(24 * 30),
  COURIER_MAX_SESSIONS: z.coerce.number().int().min(1).max(100).default(3),
  /** Cash on delivery (issue #39): a claim above cod_amount × ratio, or above cod_amount + margin, waits for an operator's confirmation. */
  COD_CONFIRM_RATIO: z.coerce.number().min(1).max(1000).default(1.5),
  COD_CONFIRM_MARGIN_CLP: z.coerce.number().int().min(0).max(100_000_000).default(50_000),
  PROOF_MAX_BYTES: z.coerce.number().int().min(1024).max(20 * 1024 * 1024).default(2 * 1024 * 1024),
  PROOF_RETENTION_DAYS: z.coerce.number().positive().max(36500).default(90),
  /** Upload budgets (issue #39): proofs per order stop, bytes per courier and UTC day, the store's size and the disk's free room it leaves. */
  PROOF_PHOTOS_PER_STOP: z.coerce.number().int().min(1).max(100).default(5),
  PROOF_SIGNATURES_PER_STOP: z.coerce.number().int().min(1).max(100).default(2),
  PROOF_COURIER_DAILY_BYTES: z.coerce.number().int().min(1024).default(50 * 1024 * 1024),
  PROOF_STORE_MAX_BYTES: z.coerce.number().int().min(1).default(20 * 1024 ** 3),
  PROOF_MIN_FREE_BYTES: z.coerce.number().int().min(0).default(1024 ** 3),
  /** An upload no delivery refers to is removed this long after it came (by the retention run, every RETENTION_PRUNE_MS). */
  PROOF_UNUSED_HOURS: z.coerce.number().positive().max(24).default(12),
  /** Re-encoding: the long side's bound, the JPEG/WebP quality, the largest image decoded, re-encodings at once per node and waiting. */
  PROOF_MAX_SIDE: z.coerce.number().int().min(64).max(8192).default(1600),
  PROOF_QUALITY: z.coerce.number().int().min(30).max(100).default(80),
  PROOF_MAX_PIXELS: z.coerce.number().int().min(10_000).max(268_402_689).default(50_000_000),
  PROOF_ENCODE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  PROOF_ENCODE_QUEUE: z.coerce.number().int().min(0).max(10_000).default(16),
  LOGIN_MAX_FAILURES_PER_EMAIL: z.coerce.number().int().min(1).default(5),
  LOGIN_MAX_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).default(20),
  LOGIN_LOCKOUT_SECONDS: z.coerce.number().int().min(1).default(900),
  /** Password hashes (sign-in, set-password) computed at once, each on its own worker thread; unset: half the cores, at least one. */
  PASSWORD_HASH_CONCURRENCY: z.coerce.number().int().min(1).max(64).optional(),
  /** Password hashes that may wait for a turn; beyond, a sign-in is refused with 503 at once. */
  PASSWORD_HASH_QUEUE: z.coerce.number().int().min(0).max(10_000).default(16),
  /** How much nicer than the process the hashing threads run (Linux): above 0 they yield the CPU to the event loop. */
  PASSWORD_HASH_NICENESS: z.coerce.number().int().min(0).max(19).default(10),
  /** MongoDB mode: how long a valid API key is remembered (revocations reach every node at once over the bus); 0 = every request reads the store. */
  CREDENTIAL_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5000),
  CREDENTIAL_RECHECK_MS: z.coerce.number().int().min(100).max(60_000).default(2000),
  TRACKING_SOFT_BUFFER_BYTES: z.coerce.number().int().min(1024).default(64 * 1024),
  TRACKING_HARD_BUFFER_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  SANDBOX_SIMULATOR: booleanFlag.default(true),
  WEBHOOK_WORKER: booleanFlag.default(true),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(5000),
  WEBHOOK_MAX_RETRIES: z.coerce.number().int().min(0).max(20).default(8),
  WEBHOOK_RETRY_SCALE: z.coerce.number().positive().max(10).default(1),
  WEBHOOK_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(2000),
  WEBHOOK_DISABLE_AFTER_HOURS: z.coerce.number().positive().max(24 * 30).default(72),
  /** Unset: sandbox webhooks may reach loopback receivers in development, nothing private in production. */
  WEBHOOK_SANDBOX_ALLOW_PRIVATE: booleanFlag.optional(),
  BUS_PING_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  WEBHOOK_MIN_POLL_MS: z.coerce.number().int().min(10).max(10_000).default(100),
  WEBHOOK_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(1000).default(100),
  WEBHOOK_MERCHANT_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(10),
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(4),
  WEBHOOK_BACKLOG_MAX: z.coerce.number().int().min(1).max(10_000_000).default(10_000),
  WEBHOOK_RETENTION_DAYS: z.coerce.number().positive().max(3650).default(30),
  /** Recipient notifications (issue #28 item 7): the worker, its retries and the outbox's retention. */
  NOTIFY_WORKER: booleanFlag.default(true),
  NOTIFY_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(6),
  NOTIFY_RETRY_SCALE: z.coerce.number().positive().max(10).default(1),
  NOTIFY_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(2000),
  NOTIFY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  NOTIFY_RETENTION_DAYS: z.coerce.number().positive().max(3650).default(30),
  /**
   * The sending budget (issue #39 item 3): live SMS/WhatsApp per number and per merchant, per hour
   * and per day (counted across nodes: Redis when configured), and how long a new order's messages
   * wait (an order cancelled within it gets none).
   */
  NOTIFY_CAP_NUMBER_HOURLY: z.coerce.number().int().min(1).max(1_000_000).default(10),
  NOTIFY_CAP_NUMBER_DAILY: z.coerce.number().int().min(1).max(1_000_000).default(30),
  NOTIFY_CAP_MERCHANT_HOURLY: z.coerce.number().int().min(1).max(10_000_000).default(500),
  NOTIFY_CAP_MERCHANT_DAILY: z.coerce.number().int().min(1).max(10_000_000).default(3000),
  NOTIFY_HOLD_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  /** SMS through a Twilio-compatible API: all three of SID, token and sender, or none (no SMS). */
  TWILIO_BASE_URL: z.url({ protocol: /^https?$/ }).default('https://api.twilio.com'),
  TWILIO_ACCOUNT_SID: optionalString.pipe(z.string().max(100).optional()),
  TWILIO_AUTH_TOKEN: optionalString.pipe(z.string().max(200).optional()),
  TWILIO_FROM: optionalString.pipe(z.string().max(50).optional()),
  /** WhatsApp Cloud API: phone number id and access token, or neither (no WhatsApp). */
  WHATSAPP_BASE_URL: z.url({ protocol: /^https?$/ }).default('https://graph.facebook.com'),
  WHATSAPP_API_VERSION: z.string().regex(/^v\d+\.\d+$/, 'must look like v21.0').default('v21.0'),
  WHATSAPP_PHONE_NUMBER_ID: optionalString.pipe(z.string().regex(/^\d{1,30}$/, 'must be digits').optional()),
  WHATSAPP_ACCESS_TOKEN: optionalString.pipe(z.string().max(1000).optional()),
  /** Email through SMTP: smtp://user:pass@host:587 or smtps://…:465, and the sender. */
  SMTP_URL: optionalString.pipe(z.url({ protocol: /^smtps?$/ }).optional()),
  SMTP_FROM: optionalString.pipe(z.string().max(200).optional()),
  ORDER_EVENTS_RETENTION_DAYS: z.coerce.number().positive().max(36500).default(365),
  AUDIT_RETENTION_DAYS: z.coerce.number().positive().max(36500).default(730),
  RETENTION_PRUNE_MS: z.coerce.number().int().min(1000).max(86_400_000).default(3_600_000),
  /** How long the retention and reconciler leases last without renewal (a crashed holder is replaced within about this). */
  JOB_LEASE_MS: z.coerce.number().int().min(200).max(3_600_000).default(120_000),
  SANDBOX_SPEED: z.coerce.number().min(1).max(1000).default(10),
  SANDBOX_TICK_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  SANDBOX_COURIERS_PER_VEHICLE: z.coerce.number().int().min(0).max(50).default(2),
  /** The simulated fleet grows with waiting test orders (one courier each) up to this many couriers in all; extra ones idle for 5 min go off duty. */
  SANDBOX_FLEET_MAX: z.coerce.number().int().min(0).max(500).default(60),
  /** Unset (or empty): seeded in development, not in production. */
  /** Issue #38: while no operator has set a password, each start prints a set-up link for this admin (the sign-in email). */
  FIRST_OPERATOR_EMAIL: optionalString.pipe(z.email('must be an email address').optional()),
  SEED_DEMO: optionalString.pipe(booleanFlag.optional()),
  METRICS_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
  /** Embedded mode: start a new, empty store although this DATA_DIR held one whose file is now missing or empty. */
  STORE_CREATE: booleanFlag.default(false),
  /** Embedded mode: how long start-up waits for PRAGMA quick_check before serving (the check then goes on in the background). */
  STORE_CHECK_BUDGET_MS: z.coerce.number().int().min(0).max(600_000).default(3000),
  NODE_ENV: z.string().default('development'),
  GEOCODER_URL: optionalString.pipe(z.url().optional()),
  TARIFF_FILE: optionalString,
  /** The tracking page's street tiles: an {z}/{x}/{y} URL template, or `none` for the schematic map only. */
  MAP_TILE_URL: z
    .string()
    .trim()
    .default('https://tile.openstreetmap.org/{z}/{x}/{y}.png')
    .refine((v) => v === '' || v === 'none' || (/^https?:\/\/[^/\s]+\/\S*$/.test(v) && ['{z}', '{x}', '{y}'].every((p) => v.includes(p))), 'must be an http(s) URL template with {z}, {x} and {y}, or none'),
  MAP_TILE_ATTRIBUTION: z.string().trim().min(1).default('© OpenStreetMap contributors'),
  /**
   * The call relay's number (issue #38): a number the operation owns that connects the customer to
   * the courier without showing either's own. Public tracking offers it instead of the courier's
   * phone; unset, public tracking offers no number at all.
   */
  CALL_RELAY_NUMBER: optionalString.pipe(phoneSchema.optional()),
});

/** Every environment variable the service reads (deployment files are checked against it). */
export const ENV_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

export type Config = ReturnType<typeof loadConfig>;

export class ConfigError extends Error {}

/** Parses the environment into the typed configuration, failing with one clear message. */
export function loadConfig(env: Record<string, string | undefined> = process.env) {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    tariff: e.TARIFF_FILE ? loadTariffFile(e.TARIFF_FILE) : DEFAULT_SANTIAGO_TARIFF,
    /** Street tiles of the tracking page (null: the schematic map only). */
    map: { tileUrl: e.MAP_TILE_URL === '' || e.MAP_TILE_URL === 'none' ? null : e.MAP_TILE_URL, attribution: e.MAP_TILE_ATTRIBUTION },
    geocoderUrl: e.GEOCODER_URL,
    /** The number public tracking offers for calls about a delivery (a relay the operation owns); null: none, never the courier's. */
    callRelayNumber: e.CALL_RELAY_NUMBER ?? null,
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR,
    /** Embedded store start-up: create anew over a missing/empty file where a store was (STORE_CREATE), quick_check budget. */
    storeOpen: { create: e.STORE_CREATE, checkBudgetMs: e.STORE_CHECK_BUDGET_MS },
    mongodbUrl: e.MONGODB_URL,
    mongodbDb: e.MONGODB_DB,
    redisUrl: e.REDIS_URL,
    busPingMs: e.BUS_PING_MS,
    adminToken: e.ADMIN_TOKEN,
    masterKey: e.MASTER_KEY ? Buffer.from(e.MASTER_KEY, 'base64') : undefined,
    /** Base of tracking links; without PUBLIC_BASE_URL it follows the port actually bound (see App.start). */
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    publicBaseUrlGiven: e.PUBLIC_BASE_URL !== undefined,
    logLevel: e.LOG_LEVEL,
    rateLimitPerMin: e.RATE_LIMIT_PER_MIN,
    publicRateLimitPerMin: e.PUBLIC_RATE_LIMIT_PER_MIN,
    trackingLinkRateLimitPerMin: e.TRACKING_LINK_RATE_LIMIT_PER_MIN,
    courierRateLimitPerMin: e.COURIER_RATE_LIMIT_PER_MIN,
    positionFlushMs: e.POSITION_FLUSH_MS,
    /** null: positions are not checked for plausibility (POSITION_MAX_SPEED_KMH=off). */
    positionPlausibility: parsePlausibilityOrFail(e.POSITION_MAX_SPEED_KMH, e.POSITION_NOISE_M, e.POSITION_RESET_AFTER_S),
    storeTimeoutMs: e.STORE_TIMEOUT_MS,
    /** Courier liveness and the dispatch reconciler; work younger than `graceMs` may still be in flight elsewhere and is left alone. */
    dispatch: {
      staleAfterMs: e.COURIER_STALE_AFTER_MS, reconcileMs: e.DISPATCH_RECONCILE_MS, leaseMs: Math.min(e.JOB_LEASE_MS, 3 * e.DISPATCH_RECONCILE_MS), graceMs: Math.max(2 * e.DISPATCH_RECONCILE_MS, 2 * e.STORE_TIMEOUT_MS),
      /** How dispatch decides (src/domain/dispatch/policy.ts). */
      policy: {
        kind: e.DISPATCH_POLICY, roundMs: e.DISPATCH_ROUND_MS, commitSlackMs: e.DISPATCH_COMMIT_SLACK_S * 1000, horizonMs: e.DISPATCH_HORIZON_MIN * 60_000,
        handoverMs: e.DISPATCH_HANDOVER_S * 1000, lookAhead: e.DISPATCH_LOOK_AHEAD === 'on',
        bundle: { enabled: e.DISPATCH_BUNDLING === 'on', readyWithinMs: e.DISPATCH_BUNDLE_READY_WITHIN_S * 1000, maxOrders: e.DISPATCH_BUNDLE_MAX_ORDERS, maxDetourRatio: e.DISPATCH_BUNDLE_MAX_DETOUR },
      } satisfies DispatchPolicy,
    },
    /** Which peers may name the client in X-Forwarded-For; none unless configured. */
    trustProxy: parseTrustProxyOrFail(e.TRUST_PROXY),
    /** Per-node caps of the front door: sockets per address (anonymous or not yet identified) and per credential, subscriptions per socket. */
    caps: {
      socketsPerAddress: e.MAX_SOCKETS_PER_ADDRESS,
      socketsPerCredential: e.MAX_SOCKETS_PER_CREDENTIAL,
      subscriptionsPerSocket: e.MAX_SUBSCRIPTIONS_PER_SOCKET,
      subscriptionsPerAuthenticatedSocket: e.MAX_SUBSCRIPTIONS_PER_AUTHENTICATED_SOCKET,
    },
    adminLockout: { failures: e.ADMIN_MAX_FAILURES, seconds: e.ADMIN_LOCKOUT_SECONDS },
    /** Team members: how long a set-password link works, session idle and absolute expiry, sessions per member. */
    members: {
      invitationTtlMs: e.MEMBER_INVITATION_TTL_HOURS * 3_600_000,
      sessionIdleMs: e.MEMBER_SESSION_IDLE_MINUTES * 60_000,
      sessionMaxMs: e.MEMBER_SESSION_MAX_HOURS * 3_600_000,
      maxSessions: e.MEMBER_MAX_SESSIONS,
    },
    /** Courier app sessions (issue #27): links expire like team invitations. */
    courierSessions: {
      codeTtlMs: e.MEMBER_INVITATION_TTL_HOURS * 3_600_000,
      sessionMaxMs: e.COURIER_SESSION_MAX_HOURS * 3_600_000,
      maxSessions: e.COURIER_MAX_SESSIONS,
    },
    /** Cash that follows cash (issue #39): how far above cod_amount a claim waits for an operator. */
    cod: { confirmRatio: e.COD_CONFIRM_RATIO, confirmMarginClp: e.COD_CONFIRM_MARGIN_CLP },
    /** Hosted proofs of delivery (issues #27, #39): the upload's limits and budgets, the re-encoding, how long they are kept. */
    proofs: {
      maxBytes: e.PROOF_MAX_BYTES,
      retentionMs: e.PROOF_RETENTION_DAYS * 86_400_000,
      photosPerStop: e.PROOF_PHOTOS_PER_STOP,
      signaturesPerStop: e.PROOF_SIGNATURES_PER_STOP,
      courierDailyBytes: e.PROOF_COURIER_DAILY_BYTES,
      storeMaxBytes: e.PROOF_STORE_MAX_BYTES,
      minFreeBytes: e.PROOF_MIN_FREE_BYTES,
      unusedMs: e.PROOF_UNUSED_HOURS * 3_600_000,
      maxSide: e.PROOF_MAX_SIDE,
      quality: e.PROOF_QUALITY,
      maxInputPixels: e.PROOF_MAX_PIXELS,
      encodeConcurrency: e.PROOF_ENCODE_CONCURRENCY,
      encodeQueue: e.PROOF_ENCODE_QUEUE,
    },
    /** Failed sign-ins before an email (per merchant) or an address is refused for `seconds`. */
    loginLockout: { perEmail: e.LOGIN_MAX_FAILURES_PER_EMAIL, perAddress: e.LOGIN_MAX_FAILURES_PER_ADDRESS, seconds: e.LOGIN_LOCKOUT_SECONDS },
    /** Password hashing: how many at once (worker threads), how many may wait, at which CPU priority. */
    passwordHashing: {
      concurrency: e.PASSWORD_HASH_CONCURRENCY ?? Math.max(1, Math.floor(availableParallelism() / 2)),
      queueLimit: e.PASSWORD_HASH_QUEUE,
      niceness: e.PASSWORD_HASH_NICENESS,
    },
    credentialRecheckMs: e.CREDENTIAL_RECHECK_MS,
    credentialCacheMs: e.CREDENTIAL_CACHE_MS,
    /** Public tracking sockets: heartbeat, connection caps, per-socket send buffer limits (soft: drop positions; hard: close). */
    tracking: {
      heartbeatMs: e.TRACKING_HEARTBEAT_MS,
      maxSockets: e.TRACKING_MAX_SOCKETS,
      softBufferBytes: e.TRACKING_SOFT_BUFFER_BYTES,
      hardBufferBytes: Math.max(e.TRACKING_HARD_BUFFER_BYTES, e.TRACKING_SOFT_BUFFER_BYTES),
    },
    webhooks: {
      worker: e.WEBHOOK_WORKER,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      maxRetries: e.WEBHOOK_MAX_RETRIES,
      retryScale: e.WEBHOOK_RETRY_SCALE,
      pollMs: e.WEBHOOK_POLL_MS,
      disableAfterMs: e.WEBHOOK_DISABLE_AFTER_HOURS * 3_600_000,
      sandboxReach: sandboxReachOf(e.WEBHOOK_SANDBOX_ALLOW_PRIVATE, e.NODE_ENV === 'production'),
      minPollMs: e.WEBHOOK_MIN_POLL_MS,
      maxInFlight: e.WEBHOOK_MAX_IN_FLIGHT,
      merchantConcurrency: e.WEBHOOK_MERCHANT_CONCURRENCY,
      endpointConcurrency: e.WEBHOOK_ENDPOINT_CONCURRENCY,
      backlogMax: e.WEBHOOK_BACKLOG_MAX,
    },
    notifications: {
      worker: e.NOTIFY_WORKER,
      pollMs: e.NOTIFY_POLL_MS,
      maxAttempts: e.NOTIFY_MAX_ATTEMPTS,
      retryScale: e.NOTIFY_RETRY_SCALE,
      leaseMs: e.NOTIFY_TIMEOUT_MS * 3,
      batch: 20,
      providers: notificationProvidersOf(e),
      caps: {
        numberHourly: e.NOTIFY_CAP_NUMBER_HOURLY,
        numberDaily: e.NOTIFY_CAP_NUMBER_DAILY,
        merchantHourly: e.NOTIFY_CAP_MERCHANT_HOURLY,
        merchantDaily: e.NOTIFY_CAP_MERCHANT_DAILY,
      },
      holdMs: e.NOTIFY_HOLD_SECONDS * 1000,
    },
    retention: {
      notificationMs: e.NOTIFY_RETENTION_DAYS * 86_400_000,
      webhookMs: e.WEBHOOK_RETENTION_DAYS * 86_400_000,
      orderEventsMs: e.ORDER_EVENTS_RETENTION_DAYS * 86_400_000,
      /** Audit log entries (issue #29) older than this are pruned. */
      auditMs: e.AUDIT_RETENTION_DAYS * 86_400_000,
      pruneMs: e.RETENTION_PRUNE_MS,
      /** The retention lease: renewed by a heartbeat while a run goes on (src/domain/lease-holder.ts). */
      leaseMs: e.JOB_LEASE_MS,
    },
    sandbox: { simulator: e.SANDBOX_SIMULATOR, speed: e.SANDBOX_SPEED, tickMs: e.SANDBOX_TICK_MS, couriersPerVehicle: e.SANDBOX_COURIERS_PER_VEHICLE, fleetMax: e.SANDBOX_FLEET_MAX },
    firstOperatorEmail: (e.FIRST_OPERATOR_EMAIL ?? 'admin@delivery.local').toLowerCase(),
    seedDemo: e.SEED_DEMO ?? e.NODE_ENV !== 'production',
    /** Bearer token for /metrics; without one, /metrics is open in development and 404 in production. */
    metricsToken: e.METRICS_TOKEN,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    production: e.NODE_ENV === 'production',
    storeKind: e.MONGODB_URL ? ('mongodb' as const) : ('sqlite' as const),
  };
}

function parsePlausibilityOrFail(speeds: string, noiseM: number, resetAfterS: number): PositionPlausibility | null {
  try {
    const maxSpeedKmh = parseMaxSpeeds(speeds);
    return maxSpeedKmh && { maxSpeedKmh, noiseM, resetAfterMs: resetAfterS * 1000 };
  } catch (error) {
    throw new ConfigError(`Invalid configuration:\n  ${(error as Error).message}`);
  }
}

function parseTrustProxyOrFail(value: string | undefined): TrustProxy {
  const parsed = parseTrustProxy(value);
  if (typeof parsed === 'string') throw new ConfigError(`Invalid configuration:\n  TRUST_PROXY: ${parsed}`);
  return parsed;
}

function loadTariffFile(file: string): Tariff {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`Invalid configuration:\n  TARIFF_FILE: cannot read ${file} as JSON (${(error as Error).message})`);
  }
  const parsed = tariffSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  TARIFF_FILE ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** true: any address; false: public only; unset: this machine's loopback in development (a receiver beside the service), public only in production. */
function sandboxReachOf(allowPrivate: boolean | undefined, production: boolean): WebhookReach {
  if (allowPrivate !== undefined) return allowPrivate ? 'private' : 'public';
  return production ? 'public' : 'loopback';
}

/** Each channel's provider, configured only when every setting it needs is given (a half-given one fails start-up). */
function notificationProvidersOf(e: z.output<typeof envSchema>): NotifierConfig {
  const timeoutMs = e.NOTIFY_TIMEOUT_MS;
  const all = (names: string[], values: Array<string | undefined>) => {
    const given = values.filter((v) => v !== undefined).length;
    if (given > 0 && given < values.length) throw new ConfigError(`Invalid configuration:\n  ${names.join(', ')}: give all of them or none`);
    return given === values.length;
  };
  const sms = all(['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_FROM'], [e.TWILIO_ACCOUNT_SID, e.TWILIO_AUTH_TOKEN, e.TWILIO_FROM]);
  const whatsapp = all(['WHATSAPP_PHONE_NUMBER_ID', 'WHATSAPP_ACCESS_TOKEN'], [e.WHATSAPP_PHONE_NUMBER_ID, e.WHATSAPP_ACCESS_TOKEN]);
  const email = all(['SMTP_URL', 'SMTP_FROM'], [e.SMTP_URL, e.SMTP_FROM]);
  return {
    sms: sms ? { baseUrl: e.TWILIO_BASE_URL, accountSid: e.TWILIO_ACCOUNT_SID!, authToken: e.TWILIO_AUTH_TOKEN!, from: e.TWILIO_FROM!, timeoutMs } : null,
    whatsapp: whatsapp ? { baseUrl: e.WHATSAPP_BASE_URL, apiVersion: e.WHATSAPP_API_VERSION, phoneNumberId: e.WHATSAPP_PHONE_NUMBER_ID!, accessToken: e.WHATSAPP_ACCESS_TOKEN!, timeoutMs } : null,
    email: email ? { url: e.SMTP_URL!, from: e.SMTP_FROM!, timeoutMs } : null,
  };
}
