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
  PORT: z.coerce.number().int().min(0).max(65535).default(3000).describe('Where the HTTP server listens (REST, GraphQL, sockets, pages).'),
  HOST: z.string().default('0.0.0.0').describe('The address the HTTP server binds.'),
  DATA_DIR: z.string().min(1).default('./data').describe('Embedded mode: the SQLite file (WAL), `master.key` and hosted proofs; made owner-only (0700, files 0600) at every start.'),
  MONGODB_URL: optionalString.pipe(z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// URL').optional()).describe('The distributed store (a MongoDB 7/8 replica set). Unset: the embedded SQLite store.'),
  MONGODB_DB: z.string().min(1).default('express_delivery').describe("The distributed store's database name."),
  REDIS_URL: optionalString.pipe(z.string().regex(/^rediss?:\/\//, 'must be a redis:// URL').optional()).describe('The distributed bus, rate limits and courier geo index. Unset: in-process.'),
  ADMIN_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()).describe('At least 16 characters; `Authorization: Bearer` for the admin GraphQL mutations. Unset: the admin API is closed.'),
  MASTER_KEY: optionalString.pipe(
    z
      .string()
      .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded')
      .optional(),
  ).describe('32 bytes, base64: encrypts API secrets at rest; **required** with `MONGODB_URL`. Unset in embedded mode: generated in `DATA_DIR`.'),
  PUBLIC_BASE_URL: optionalString.pipe(z.url().optional()).describe('Base of tracking links, sign-in links and webhook URLs. Unset: `http://localhost:<port>` (the port actually bound).'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('pino level (`silent` … `trace`); logs are JSON on stdout.'),
  RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).default(120).describe('Requests per minute per API key (per-merchant override by an admin).'),
  PUBLIC_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).default(60).describe('The **anonymous budget**: operations per minute per client address (IPv4 address or IPv6 /64), shared by every anonymous entrance — REST tracking, health and docs, the `/track` page, GraphQL over HTTP, each operation on a graphql-ws socket, tracking-socket connects — except views through a capability tracking link (`TRACKING_LINK_RATE_LIMIT_PER_MIN`).'),
  TRACKING_LINK_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).default(30).describe('Views per minute through **one capability tracking link** (`/track/{number}?k=…`: the page, REST tracking and socket connects with that `k`), whatever the addresses: a view costs 2 (the page and its socket); see [the tracking page](apps.md#the-customers-tracking-page).'),
  COURIER_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).default(240).describe('Per courier token, REST and GraphQL (HTTP and socket) alike.'),
  POSITION_FLUSH_MS: z.coerce.number().int().min(0).max(10_000).default(1000).describe('Courier positions are written in batches this often (`0`: each at once); see [Courier positions over a socket](api.md#courier-positions-over-a-socket).'),
  STORE_TIMEOUT_MS: z.coerce.number().int().min(200).max(30_000).default(1500).describe("MongoDB: the deadline of one store call; SQLite: how long a write waits for another process's write lock (off the event loop). Then 503 `SERVICE_UNAVAILABLE` with `Retry-After`; see [Deadlines](operations.md#deadlines-failover-and-self-healing-dispatch) and [the lock](operations.md#another-process-holds-the-database-lock)."),
  POSITION_MAX_SPEED_KMH: z.string().default('').describe("A courier position implying more than its vehicle's speed since the last accepted fix is refused (422 `IMPLAUSIBLE_POSITION`): `vehicle:km/h` pairs over the defaults `bike:45,motorcycle:120,car:150,van:130`, or `off`; see [Implausible positions](api.md#courier-positions-over-a-socket). Unset: the defaults."),
  POSITION_NOISE_M: z.coerce.number().min(0).max(5000).default(150).describe('GPS jitter (metres) the speed rule allows between any two fixes, whatever the time between them.'),
  POSITION_RESET_AFTER_S: z.coerce.number().int().min(1).max(86_400).default(600).describe('After this long (seconds) without an accepted fix, any position is accepted.'),
  COURIER_STALE_AFTER_MS: z.coerce.number().int().min(1000).max(86_400_000).default(120_000).describe('A courier with no position report for this long is not dispatchable and leaves the geo index.'),
  DISPATCH_RECONCILE_MS: z.coerce.number().int().min(100).max(600_000).default(15_000).describe('How often the dispatch reconciler runs (one node at a time, by lease).'),
  DISPATCH_POLICY: z.enum(['planned', 'greedy']).default('planned').describe("`planned` (periodic optimal rounds over the nearest candidates, commitment at the ready time, bundling: [dispatch.md](dispatch.md)) or `greedy` (nearest courier at creation, never past a shift's end)."),
  DISPATCH_ROUND_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000).describe("How often the planned policy's dispatch round runs (one node at a time, by lease)."),
  DISPATCH_COMMIT_SLACK_S: z.coerce.number().int().min(0).max(3600).default(480).describe('A courier is committed this long before its latest departure for the ready time.'),
  DISPATCH_HORIZON_MIN: z.coerce.number().int().min(1).max(240).default(45).describe('Orders ready within this many minutes are in a round.'),
  DISPATCH_HANDOVER_S: z.coerce.number().int().min(0).max(3600).default(120).describe("Time at the pickup counter; no pickup is planned later than the courier's shift end less this."),
  DISPATCH_LOOK_AHEAD: z.enum(['on', 'off']).default('on').describe('Busy couriers about to finish take part in the round where their job ends (an order matched to one waits for it).'),
  DISPATCH_CANDIDATES: z.coerce.number().int().min(1).max(10_000).default(16).describe('A round prices each order against this many nearest couriers (and each courier against this many nearest orders); the rest are not in its assignment.'),
  DISPATCH_BUNDLING: z.enum(['on', 'off']).default('on').describe("Dynamic bundles of one merchant's orders into one job (`on`/`off`)."),
  DISPATCH_BUNDLE_READY_WITHIN_S: z.coerce.number().int().min(0).max(3600).default(300).describe('Bundling: orders whose ready times are within this many seconds.'),
  DISPATCH_BUNDLE_MAX_ORDERS: z.coerce.number().int().min(2).max(8).default(3).describe('Bundling: orders in one bundle at most.'),
  DISPATCH_BUNDLE_MAX_DETOUR: z.coerce.number().min(1).max(3).default(1.3).describe('Bundling: the longest detour a bundle may cause (ratio to the direct route).'),
  DISPATCH_BUNDLE_SLACK_S: z.coerce.number().int().min(0).max(3600).default(300).describe('Bundling: how many seconds after its estimated delivery a bundled order may arrive (`0`: never later).'),
  TRACKING_HEARTBEAT_MS: z.coerce.number().int().min(50).max(300_000).default(30_000).describe("Tracking socket heartbeat, also the courier socket's and graphql-ws's: a dead client is dropped after one to two heartbeats."),
  TRACKING_MAX_SOCKETS: z.coerce.number().int().min(1).default(20_000).describe('Public tracking sockets one node holds at most.'),
  TRUST_PROXY: z.string().optional().describe('Who may name the client in `X-Forwarded-For`: a hop count (`1`) or a comma list of proxy addresses/CIDRs (`10.0.0.0/8,127.0.0.1`). Unset: the socket peer is the client and the header is ignored.'),
  MAX_SOCKETS_PER_ADDRESS: z.coerce.number().int().min(1).default(20).describe('Open sockets per client address (tracking sockets and graphql-ws sockets not yet authenticated, counted together); over it: close 4429.'),
  MAX_SOCKETS_PER_CREDENTIAL: z.coerce.number().int().min(1).default(100).describe('Authenticated sockets (graphql-ws and courier sockets together) per API key or courier token; over it: close 4429 (the courier socket: 429 at the upgrade).'),
  MAX_SUBSCRIPTIONS_PER_SOCKET: z.coerce.number().int().min(1).default(10).describe('Operations open at once on one anonymous graphql-ws socket; over it the operation gets `RATE_LIMITED`, the socket stays.'),
  MAX_SUBSCRIPTIONS_PER_AUTHENTICATED_SOCKET: z.coerce.number().int().min(1).default(100).describe('Operations open at once on one authenticated graphql-ws socket; over it the operation gets `RATE_LIMITED`, the socket stays.'),
  ADMIN_MAX_FAILURES: z.coerce.number().int().min(1).default(5).describe('Wrong admin tokens an address may send before it is locked out (429, even with the right token) for the rest of `ADMIN_LOCKOUT_SECONDS`; each failure is logged with the address.'),
  ADMIN_LOCKOUT_SECONDS: z.coerce.number().int().min(1).default(900).describe("The admin token lockout's window."),
  /** Team members (issue #19): set-password links, console sessions and sign-in lockouts. */
  MEMBER_INVITATION_TTL_HOURS: z.coerce.number().positive().max(24 * 30).default(72).describe("How long a team member's (or operator's, or courier's) set-password or sign-in link works (single use; a new invitation replaces it)."),
  MEMBER_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(7 * 24 * 60).default(120).describe('A console (or ops) session ends when unused this long.'),
  MEMBER_SESSION_MAX_HOURS: z.coerce.number().positive().max(24 * 30).default(12).describe('A console (or ops) session ends this long after sign-in, however used.'),
  MEMBER_MAX_SESSIONS: z.coerce.number().int().min(1).max(1000).default(10).describe("Sessions one member may hold; signing in beyond it ends that member's oldest session."),
  /** The courier app (issue #27): its sessions, and the proofs of delivery it uploads. */
  COURIER_SESSION_MAX_HOURS: z.coerce.number().positive().max(24 * 90).default(24 * 30).describe('A courier app session ends this long after sign-in.'),
  COURIER_MAX_SESSIONS: z.coerce.number().int().min(1).max(100).default(3).describe('Courier app sessions one courier may hold.'),
  /** Cash on delivery (issue #39): a claim above cod_amount × ratio, or above cod_amount + margin, waits for an operator's confirmation. */
  COD_CONFIRM_RATIO: z.coerce.number().min(1).max(1000).default(1.5).describe("Cash on delivery: a claim above `cod_amount` × this waits for an operator's confirmation."),
  COD_CONFIRM_MARGIN_CLP: z.coerce.number().int().min(0).max(100_000_000).default(50_000).describe("Cash on delivery: a claim above `cod_amount` + this many pesos waits for an operator's confirmation."),
  PROOF_MAX_BYTES: z.coerce.number().int().min(1024).max(20 * 1024 * 1024).default(2 * 1024 * 1024).describe('The largest proof upload (photo or signature) accepted, in bytes.'),
  PROOF_RETENTION_DAYS: z.coerce.number().positive().max(36500).default(90).describe('Hosted proofs are deleted this long after upload.'),
  /** Upload budgets (issue #39): proofs per order stop, bytes per courier and UTC day, the store's size and the disk's free room it leaves. */
  PROOF_PHOTOS_PER_STOP: z.coerce.number().int().min(1).max(100).default(5).describe('Photo uploads per order stop.'),
  PROOF_SIGNATURES_PER_STOP: z.coerce.number().int().min(1).max(100).default(2).describe('Signature uploads per order stop.'),
  PROOF_COURIER_DAILY_BYTES: z.coerce.number().int().min(1024).default(50 * 1024 * 1024).describe('Bytes one courier may upload per UTC day.'),
  PROOF_STORE_MAX_BYTES: z.coerce.number().int().min(1).default(20 * 1024 ** 3).describe("The proof store's size at most."),
  PROOF_MIN_FREE_BYTES: z.coerce.number().int().min(0).default(1024 ** 3).describe('Free room on the disk an upload must leave; see [Disk full](operations.md#disk-full).'),
  PROOF_UNUSED_HOURS: z.coerce.number().positive().max(24).default(12).describe('An upload no delivery refers to is removed this long after it came (by the retention run, every `RETENTION_PRUNE_MS`).'),
  /** Re-encoding: the long side's bound, the JPEG/WebP quality, the largest image decoded, re-encodings at once per node and waiting. */
  PROOF_MAX_SIDE: z.coerce.number().int().min(64).max(8192).default(1600).describe("Re-encoding: the long side's bound in pixels."),
  PROOF_QUALITY: z.coerce.number().int().min(30).max(100).default(80).describe('Re-encoding: the JPEG/WebP quality.'),
  PROOF_MAX_PIXELS: z.coerce.number().int().min(10_000).max(268_402_689).default(50_000_000).describe('Re-encoding: the largest image decoded, in pixels.'),
  PROOF_ENCODE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1).describe('Re-encodings at once per node.'),
  PROOF_ENCODE_QUEUE: z.coerce.number().int().min(0).max(10_000).default(16).describe('Re-encodings that may wait; beyond, an upload is refused at once.'),
  LOGIN_MAX_FAILURES_PER_EMAIL: z.coerce.number().int().min(1).default(5).describe('Failed sign-ins for one email (within a merchant) before sign-ins are refused (`RATE_LIMITED`, even with the right password) for the rest of `LOGIN_LOCKOUT_SECONDS`; exact under any concurrency (each attempt is counted before its password is hashed, see [Team members](apps.md#team-members)).'),
  LOGIN_MAX_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).default(20).describe('Failed sign-ins from one address before sign-ins from it are refused for the rest of the window; failures are logged with the address only.'),
  LOGIN_LOCKOUT_SECONDS: z.coerce.number().int().min(1).default(900).describe("The sign-in lockout's window."),
  PASSWORD_HASH_CONCURRENCY: z.coerce.number().int().min(1).max(64).optional().describe('Password hashes (sign-in, set-password) computed at once, each on a worker thread of its own. Unset: half the cores, at least one.'),
  PASSWORD_HASH_QUEUE: z.coerce.number().int().min(0).max(10_000).default(16).describe('Password hashes that may wait for a turn; beyond, a sign-in is refused with 503 `SERVICE_UNAVAILABLE` at once, nothing counted.'),
  PASSWORD_HASH_NICENESS: z.coerce.number().int().min(0).max(19).default(10).describe('How much nicer than the process the hashing threads run on Linux (above 0 they yield the CPU to request handling).'),
  CREDENTIAL_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5000).describe('MongoDB: how long a valid API key is remembered per node (revocations reach every node at once over the bus; `0` = no cache).'),
  CREDENTIAL_RECHECK_MS: z.coerce.number().int().min(100).max(60_000).default(2000).describe('How often open sockets and subscriptions re-check their credentials: a revoked or rotated key, a suspended merchant or a disabled courier ends them within this (close 4403 with the error code; SSE streams end with the error).'),
  TRACKING_SOFT_BUFFER_BYTES: z.coerce.number().int().min(1024).default(64 * 1024).describe('A tracking socket whose send buffer passes this gets no position updates until it drains.'),
  TRACKING_HARD_BUFFER_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024).describe("Every socket kind's send-buffer limit: past it the socket is closed; see [what a socket may cost](api.md#what-a-socket-may-cost-the-server)."),
  SANDBOX_SIMULATOR: booleanFlag.default(true).describe('Run simulated sandbox couriers; with several nodes only the holder of a store lease drives them, so it may be on everywhere.'),
  WEBHOOK_WORKER: booleanFlag.default(true).describe('Send webhooks from this node (safe on every node: deliveries are leased).'),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(5000).describe("One delivery attempt's timeout; the lease is 3 × this."),
  WEBHOOK_MAX_RETRIES: z.coerce.number().int().min(0).max(20).default(8).describe('Retries after the first attempt, spread over about 24 h.'),
  WEBHOOK_RETRY_SCALE: z.coerce.number().positive().max(10).default(1).describe('Multiplier of the retry delays.'),
  WEBHOOK_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(2000).describe('Fallback poll for due retries, besides being woken by the bus.'),
  WEBHOOK_DISABLE_AFTER_HOURS: z.coerce.number().positive().max(24 * 30).default(72).describe('An endpoint failing this long is disabled (reason shown).'),
  WEBHOOK_SANDBOX_ALLOW_PRIVATE: booleanFlag.optional().describe("**Test-mode** endpoints: unset = this machine's loopback (`localhost`, `127.0.0.0/8`, `::1`) in development, nothing private in production; `true` = any private address too; `false` = public addresses only. Live endpoints: public only, always."),
  BUS_PING_MS: z.coerce.number().int().min(100).max(60_000).default(5000).describe('Redis bus: the subscriber connection is pinged this often; no answer within as long drops and reopens it (a frozen or half-open connection), and watchers resync; see [Watchers after a bus outage](operations.md#watchers-after-a-bus-outage).'),
  WEBHOOK_MIN_POLL_MS: z.coerce.number().int().min(10).max(10_000).default(100).describe("Least time between two store polls of a node's webhook worker, whatever the bus traffic; see [Webhook worker](operations.md#webhook-worker-fair-share-and-retention)."),
  WEBHOOK_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(1000).default(100).describe('Webhook requests one node has in flight at most.'),
  WEBHOOK_MERCHANT_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(10).describe('Webhook deliveries in flight per merchant, across all nodes.'),
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(4).describe('Webhook deliveries in flight per endpoint, across all nodes.'),
  WEBHOOK_BACKLOG_MAX: z.coerce.number().int().min(1).max(10_000_000).default(10_000).describe('Pending deliveries per endpoint beyond which new ones are written as `failed` with `backlog full` (visible in the log, redeliverable).'),
  WEBHOOK_RETENTION_DAYS: z.coerce.number().positive().max(3650).default(30).describe('Webhook deliveries and their attempts, and the events of the event feed (`GET /events`), are deleted this long after creation.'),
  /** Recipient notifications (issue #28 item 7): the worker, its retries and the outbox's retention. */
  NOTIFY_WORKER: booleanFlag.default(true).describe('Send live recipient notifications from this node (see [Recipient notifications](notifications.md)).'),
  NOTIFY_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(6).describe('Attempts before a notification is given up.'),
  NOTIFY_RETRY_SCALE: z.coerce.number().positive().max(10).default(1).describe('Multiplier of the notification retry delays (1, 5, 15, 60, 180 min ± 10 %).'),
  NOTIFY_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(2000).describe('How often due notifications are claimed.'),
  NOTIFY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000).describe("One provider call's deadline (the lease is 3× it)."),
  NOTIFY_RETENTION_DAYS: z.coerce.number().positive().max(3650).default(30).describe('Notifications (sent, failed or sandboxed) are deleted this long after creation, in bounded batches by the retention job.'),
  /**
   * The sending budget (issue #39 item 3): live SMS/WhatsApp per number and per merchant, per hour
   * and per day (counted across nodes: Redis when configured), and how long a new order's messages
   * wait (an order cancelled within it gets none).
   */
  NOTIFY_CAP_NUMBER_HOURLY: z.coerce.number().int().min(1).max(1_000_000).default(10).describe('Live SMS + WhatsApp one number may get per hour; more are `blocked` (see [the sending budget](notifications.md#the-sending-budget)); counted across nodes (Redis when configured).'),
  NOTIFY_CAP_NUMBER_DAILY: z.coerce.number().int().min(1).max(1_000_000).default(30).describe('Live SMS + WhatsApp one number may get per day.'),
  NOTIFY_CAP_MERCHANT_HOURLY: z.coerce.number().int().min(1).max(10_000_000).default(500).describe('Live SMS + WhatsApp one merchant may send per hour.'),
  NOTIFY_CAP_MERCHANT_DAILY: z.coerce.number().int().min(1).max(10_000_000).default(3000).describe('Live SMS + WhatsApp one merchant may send per day.'),
  NOTIFY_HOLD_SECONDS: z.coerce.number().int().min(0).max(3600).default(60).describe("A new order's live messages wait this long; an order cancelled within it gets none."),
  /** SMS through a Twilio-compatible API: all three of SID, token and sender, or none (no SMS). */
  TWILIO_BASE_URL: z.url({ protocol: /^https?$/ }).default('https://api.twilio.com').describe('SMS: the Twilio-compatible API (point it elsewhere for a compatible provider or a test server).'),
  TWILIO_ACCOUNT_SID: optionalString.pipe(z.string().max(100).optional()).describe('SMS through a Twilio-compatible API: the account SID (SID, token and sender: all three or none; none: no SMS).'),
  TWILIO_AUTH_TOKEN: optionalString.pipe(z.string().max(200).optional()).describe('SMS: the auth token.'),
  TWILIO_FROM: optionalString.pipe(z.string().max(50).optional()).describe('SMS: the sender.'),
  /** WhatsApp Cloud API: phone number id and access token, or neither (no WhatsApp). */
  WHATSAPP_BASE_URL: z.url({ protocol: /^https?$/ }).default('https://graph.facebook.com').describe("WhatsApp: the Cloud API's base URL."),
  WHATSAPP_API_VERSION: z.string().regex(/^v\d+\.\d+$/, 'must look like v21.0').default('v21.0').describe('WhatsApp: the Cloud API version.'),
  WHATSAPP_PHONE_NUMBER_ID: optionalString.pipe(z.string().regex(/^\d{1,30}$/, 'must be digits').optional()).describe('WhatsApp through the Cloud API: the phone number id (id and token, or neither; neither: no WhatsApp).'),
  WHATSAPP_ACCESS_TOKEN: optionalString.pipe(z.string().max(1000).optional()).describe('WhatsApp: the access token.'),
  /** Email through SMTP: smtp://user:pass@host:587 or smtps://…:465, and the sender. */
  SMTP_URL: optionalString.pipe(z.url({ protocol: /^smtps?$/ }).optional()).describe('Email through SMTP (nodemailer): `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465` (with `SMTP_FROM`, or neither: no email).'),
  SMTP_FROM: optionalString.pipe(z.string().max(200).optional()).describe('Email: the sender (`Envíos <avisos@example.cl>`).'),
  ORDER_EVENTS_RETENTION_DAYS: z.coerce.number().positive().max(36500).default(365).describe("The events (history) of ended orders (completed, cancelled, returned, disposed) are deleted this long after the order's creation; the orders stay."),
  AUDIT_RETENTION_DAYS: z.coerce.number().positive().max(36500).default(730).describe("Entries of the [operators' audit log](apps.md#operators) older than this are deleted (by retention, in bounded batches)."),
  RETENTION_PRUNE_MS: z.coerce.number().int().min(1000).max(86_400_000).default(3_600_000).describe('How often the retention job runs (one node at a time, by lease).'),
  JOB_LEASE_MS: z.coerce.number().int().min(200).max(3_600_000).default(120_000).describe("How long the retention lease (and the reconciler's, at most 3 × `DISPATCH_RECONCILE_MS`) lasts unrenewed: renewed every third of it while the job runs; a crashed holder is replaced within about this."),
  SANDBOX_SPEED: z.coerce.number().min(1).max(1000).default(10).describe("Simulator speed multiplier (merchants can override it with the `sandbox_speed` setting; test orders' estimated times are divided by it)."),
  SANDBOX_TICK_MS: z.coerce.number().int().min(50).max(60_000).default(1000).describe("The simulator's tick."),
  SANDBOX_COURIERS_PER_VEHICLE: z.coerce.number().int().min(0).max(50).default(2).describe('Simulated couriers per vehicle class.'),
  SANDBOX_FLEET_MAX: z.coerce.number().int().min(0).max(500).default(60).describe('The simulated fleet grows with the waiting test orders (a courier at each unserved pickup) up to this many simulated couriers in all; extra ones idle for 5 min go off duty.'),
  FIRST_OPERATOR_EMAIL: optionalString.pipe(z.email('must be an email address').optional()).describe('While no operator has set a password, each start prints a one-time set-up link for the first admin operator, who signs in to `/ops` with this e-mail (see [Getting in](getting-in.md)). Default `admin@delivery.local`.'),
  SEED_DEMO: optionalString.pipe(booleanFlag.optional()).describe('Seed the demo merchant into an empty embedded store; in production (only with `SEED_DEMO=true`) its credentials go to `DATA_DIR/demo-credentials.txt` (0600), never to stdout. Unset: `true` in development, `false` in production.'),
  METRICS_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()).describe('At least 16 characters; Prometheus `/metrics` then needs `Authorization: Bearer <token>`. Unset: open in development, 404 in production.'),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000).describe('On SIGTERM: drain for up to this long (see [Stopping and draining](operations.md#stopping-and-draining)), then exit 0 — within this + 1 s.'),
  STORE_CREATE: booleanFlag.default(false).describe('Embedded mode: start a new, empty store although `DATA_DIR` held one whose database file is now missing or empty (set it for one start, then remove it).'),
  STORE_CHECK_BUDGET_MS: z.coerce.number().int().min(0).max(600_000).default(3000).describe('Embedded mode: how long start-up waits for `PRAGMA quick_check` of the SQLite file before serving; a check still running goes on in the background (see [A damaged database file](operations.md#a-damaged-database-file)).'),
  NODE_ENV: z.string().default('development').describe('`production`: no demo seed unless asked, `/metrics` only with `METRICS_TOKEN` (see [Production notes](operations.md#production-notes)).'),
  GEOCODER_URL: optionalString.pipe(z.url().optional()).describe("A Nominatim server. Unset: the offline comuna gazetteer geocodes (comuna precision only, see [Location precision](orders.md#location-precision-and-the-geofence)). Either way public tracking names the drop-off by its comuna, never by the geocoder's street text."),
  TARIFF_FILE: optionalString.describe('A JSON tariff table (validated at boot). Unset: the built-in Santiago tariff.'),
  MAP_TILE_URL: z
    .string()
    .trim()
    .default('https://tile.openstreetmap.org/{z}/{x}/{y}.png')
    .refine((v) => v === '' || v === 'none' || (/^https?:\/\/[^/\s]+\/\S*$/.test(v) && ['{z}', '{x}', '{y}'].every((p) => v.includes(p))), 'must be an http(s) URL template with {z}, {x} and {y}, or none').describe("The tracking page's street map (Leaflet, served by this server): a `{z}/{x}/{y}` tile URL template (`{s}` allowed); `none` shows only the schematic map, which also stands in whenever no tile loads within 6 s. Use your own tile server or provider for real traffic (OpenStreetMap's tile policy)."),
  MAP_TILE_ATTRIBUTION: z.string().trim().min(1).default('© OpenStreetMap contributors').describe("The attribution shown on the tracking page's map."),
  CALL_RELAY_NUMBER: optionalString.pipe(phoneSchema.optional()).describe('A phone number the operation owns (E.164, e.g. `+56227654321`) that relays calls to the courier without showing either side\'s number: public tracking\'s `driver.phone` and the tracking page\'s call button use it. Unset: public tracking gives `driver.phone: ""` and the page shows no call button. The courier\'s own number is never public either way.'),
});

/** Every environment variable the service reads (deployment files are checked against it). */
export const ENV_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

/** Each variable, the value it has when unset and its description: `npm run docs` writes docs/configuration.md from it. */
export function environmentReference(): Array<{ name: string; unset: unknown; description: string }> {
  const unset: Record<string, unknown> = envSchema.parse({});
  return Object.entries(envSchema.shape).map(([name, schema]) => ({ name, unset: unset[name], description: schema.description ?? '' }));
}

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
        handoverMs: e.DISPATCH_HANDOVER_S * 1000, lookAhead: e.DISPATCH_LOOK_AHEAD === 'on', candidates: e.DISPATCH_CANDIDATES,
        bundle: { enabled: e.DISPATCH_BUNDLING === 'on', readyWithinMs: e.DISPATCH_BUNDLE_READY_WITHIN_S * 1000, maxOrders: e.DISPATCH_BUNDLE_MAX_ORDERS, maxDetourRatio: e.DISPATCH_BUNDLE_MAX_DETOUR, promiseSlackMs: e.DISPATCH_BUNDLE_SLACK_S * 1000 },
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
