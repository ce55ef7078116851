/**
 * A cluster of real app processes (src/main.ts) sharing one store — a SQLite file (DATA_DIR), or
 * with `store: 'mongodb'` a jongodb test server the test owns (so it can pause it) — and one private
 * redis-server the test owns (so it can kill and restart it on the same port). Merchants and
 * couriers are seeded on the shared store before the nodes start; everything after that goes
 * through the nodes' HTTP and WebSocket APIs.
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, type Client } from 'graphql-ws';
import { WebSocket } from 'ws';
import { buildContainer } from '../../src/container.js';
import { loadConfig } from '../../src/config.js';
import type { LatLng } from '../../src/domain/types.js';
import { api, makeDataDir, type MerchantCredentials } from '../helpers/app.js';
import { spawnServer, type ServerProcess } from '../helpers/process.js';
import { FAULT_SUITE_REQUIRED, skipOrFail } from '../helpers/fault-suite.js';
import { jongodbBinary, startJongodb, testStoreTimeoutMs, uniqueDbName, type MongoServer } from '../helpers/mongo.js';
import { startCommitWitness, type CommitWitness } from '../helpers/mongo-commit-witness.js';
import { hasRedisServerBinary, startRedisServer, type RedisServer } from '../helpers/redis.js';
import { checkWebhookDelivery } from '../helpers/wire-validator.js';
import { PLACES } from '../orders/support.js';
import { openLive, type LiveClient } from '../realtime/support.js';

export { PLACES };

/** Why the suites skip on this machine ('' when they run): they need a redis-server they own. */
export const SKIP_REASON = hasRedisServerBinary() ? '' : 'distributed tests skipped: no redis-server on PATH (they kill and restart their own)';
if (SKIP_REASON) console.warn(SKIP_REASON);

/** Why the MongoDB cluster suites skip ('' when they run): they start their own jongodb server (the fault suite pauses it). */
export const MONGO_SKIP_REASON =
  SKIP_REASON || (jongodbBinary() ? '' : 'MongoDB cluster tests skipped: no @jongodb/memory-server-bin-linux-x64-gnu binary (npm ci installs it on linux-x64)');
/** Whether MongoDB clusters run on a real server (MONGODB_URL) rather than jongodb. */
export const ON_REAL_MONGODB = !!process.env.MONGODB_URL;
if (MONGO_SKIP_REASON && !SKIP_REASON) {
  if (FAULT_SUITE_REQUIRED) skipOrFail(MONGO_SKIP_REASON); // CI: the MongoDB fault suite must run
  console.warn(MONGO_SKIP_REASON);
}

/**
 * How long a node may take to start: tsx compiles the app first, and under load (CI, several suites
 * at once) that alone took over 20 s — the default, which made a whole MongoDB suite fail in its
 * set-up (reported as every case skipped).
 */
const NODE_START_TIMEOUT_MS = 60_000;

/** The MASTER_KEY of MongoDB clusters (distributed mode requires one; every node and the seeder share it). */
export const CLUSTER_MASTER_KEY = Buffer.alloc(32, 9).toString('base64');

export interface SeededCourier {
  id: string;
  token: string;
}

export interface Cluster {
  dataDir: string;
  /**
   * The shared MongoDB (store: 'mongodb'): its URL, database and process; with `witnessStore`, the
   * proxy the nodes reach it through, which records what the server acknowledged.
   */
  mongo: { server: MongoServer; dbName: string; witness: CommitWitness | null } | null;
  nodes: ServerProcess[];
  /** Merchant with a rate limit high enough for any test's traffic. */
  shop: MerchantCredentials;
  /** Merchant left on the configured RATE_LIMIT_PER_MIN. */
  limited: MerchantCredentials;
  couriers: SeededCourier[];
  /** SIGKILLs redis-server (as a crash would) and waits for it to exit. */
  killRedis(): Promise<void>;
  /** SIGSTOP / SIGCONT: a Redis that keeps its connections open and stops answering (frozen host, partition). */
  freezeRedis(): void;
  thawRedis(): void;
  /** Starts a fresh redis-server on the same port (no data survives: nothing is persisted); kills the old one first if needed. */
  restartRedis(): Promise<void>;
  /** SIGSTOP / SIGCONT the jongodb server (store: 'mongodb'): connections stay open, nothing answers. */
  pauseStore(): void;
  resumeStore(): void;
  /** Starts one more node with the cluster's environment (and `env` over it); it is stopped with the others. */
  addNode(env?: Record<string, string>): Promise<ServerProcess>;
  stop(): Promise<void>;
}

/** Polls until `check` returns a truthy value; fails with `what` once `timeoutMs` has passed. */
export async function until<T>(check: () => T | Promise<T>, what: string, timeoutMs = 10_000, everyMs = 25): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Rejects when `promise` has not settled within `ms` (a hung request fails the step, not the run). */
export async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts the redis-server (unless `redis: false`: embedded mode) and, with `store: 'mongodb'`, a
 * jongodb server; seeds the shared store in this process, closes it, then starts the nodes.
 */
export async function startCluster(options: {
  nodes: number;
  couriers: number;
  env?: Record<string, string>;
  redis?: boolean;
  /** 'mongodb': MONGODB_URL when set (a real server), else a jongodb server of the cluster's own. */
  store?: 'sqlite' | 'mongodb';
  /** A jongodb server of its own even when MONGODB_URL is set: the test pauses it (pauseStore). */
  pausableStore?: boolean;
  /** The seeder and the nodes reach MongoDB through a commit witness (test/helpers/mongo-commit-witness.ts). */
  witnessStore?: boolean;
}): Promise<Cluster> {
  const dataDir = makeDataDir();
  let redis = options.redis === false ? null : await startRedisServer();
  const port = redis?.port;
  let mongo: Cluster['mongo'] = null;
  if (options.store === 'mongodb') {
    const external = process.env.MONGODB_URL && !options.pausableStore;
    const binary = jongodbBinary();
    if (!external && !binary) throw new Error(MONGO_SKIP_REASON);
    const server: MongoServer = external ? { url: process.env.MONGODB_URL!, kind: 'external', stop: async () => {} } : await startJongodb(binary!);
    mongo = { server, dbName: uniqueDbName('exd_cluster'), witness: options.witnessStore ? await startCommitWitness(server.url) : null };
  }
  const storeEnv: Record<string, string> = mongo
    ? {
        MONGODB_URL: mongo.witness?.url ?? mongo.server.url, MONGODB_DB: mongo.dbName, MASTER_KEY: CLUSTER_MASTER_KEY, ...(redis && { REDIS_URL: redis.url }),
        // A store paused on purpose is answered within the production deadline; otherwise jongodb gets its own (test/helpers/mongo.ts).
        ...(!options.pausableStore && testStoreTimeoutMs(mongo.server.kind) !== undefined && { STORE_TIMEOUT_MS: String(testStoreTimeoutMs(mongo.server.kind)) }),
      }
    : { DATA_DIR: dataDir };
  let seeded: Awaited<ReturnType<typeof seedStore>>;
  try {
    seeded = await seedStore(storeEnv, options.couriers);
  } catch (error) {
    if (redis) await stopRedis(redis);
    await mongo?.witness?.close();
    await mongo?.server.stop();
    throw error;
  }
  const { shop, limited, couriers } = seeded;

  const nodes: ServerProcess[] = [];
  const env = {
    ...storeEnv,
    ...(redis && { REDIS_URL: redis.url }),
    SEED_DEMO: 'false',
    SANDBOX_SIMULATOR: 'false',
    COURIER_RATE_LIMIT_PER_MIN: '1000000',
    PUBLIC_RATE_LIMIT_PER_MIN: '1000000',
    SHUTDOWN_GRACE_MS: '500',
    ...options.env,
  };
  const jongodb = () => {
    if (!mongo?.server.process) throw new Error('this cluster has no MongoDB process of its own (startCluster pausableStore)');
    return mongo.server.process;
  };
  const owned = () => {
    if (!redis) throw new Error('this cluster runs without Redis');
    return redis;
  };
  const cluster: Cluster = {
    dataDir,
    mongo,
    nodes,
    shop,
    limited,
    couriers,
    killRedis: () => stopRedis(owned()),
    freezeRedis: () => stopProcess(owned().process!),
    thawRedis: () => void owned().process!.kill('SIGCONT'),
    async restartRedis() {
      await stopRedis(owned());
      redis = await startRedisServer(port);
    },
    pauseStore: () => stopProcess(jongodb()),
    resumeStore: () => void jongodb().kill('SIGCONT'),
    async addNode(extra) {
      const node = await spawnServer({ ...env, ...extra }, { startTimeoutMs: NODE_START_TIMEOUT_MS });
      nodes.push(node);
      return node;
    },
    async stop() {
      mongo?.server.process?.kill('SIGCONT'); // a paused server would hold every node's drain
      if (redis) redis.process!.kill('SIGCONT');
      await Promise.all(nodes.map((node) => stopNode(node)));
      if (redis) await stopRedis(redis);
      await mongo?.witness?.close();
      await mongo?.server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  try {
    // Every node that did start is kept (and stopped below) even when another failed to.
    const started = await Promise.allSettled(Array.from({ length: options.nodes }, () => spawnServer(env, { startTimeoutMs: NODE_START_TIMEOUT_MS })));
    for (const result of started) if (result.status === 'fulfilled') nodes.push(result.value);
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}

/** A shop with a high rate limit, a limited one and `count` test couriers, written through the admin service. */
async function seedStore(storeEnv: Record<string, string>, count: number) {
  const container = await buildContainer(loadConfig({ ...storeEnv, LOG_LEVEL: 'silent', SEED_DEMO: 'false', SANDBOX_SIMULATOR: 'false' }));
  try {
    const { admin } = container.services;
    const shop = await admin.createMerchant({ input: { name: 'Cluster Shop', address: 'Av. Providencia 1234, Providencia' } });
    await admin.setMerchantRateLimit({ input: { merchantId: shop.merchantId, perMin: 1_000_000 } });
    const limited = await admin.createMerchant({ input: { name: 'Limited Shop', address: 'Av. Providencia 1234, Providencia' } });
    const couriers: SeededCourier[] = [];
    for (let i = 1; i <= count; i++) {
      const created = await admin.createCourier({
        input: { name: `Cluster Courier ${i}`, phone: `+5697${String(2_000_000 + i).slice(-7)}`, vehicle: 'motorcycle', plate: `CL${1000 + i}`, mode: 'test' },
      });
      couriers.push({ id: created.courierId, token: created.token });
    }
    return { shop, limited, couriers };
  } finally {
    await container.close();
  }
}

/**
 * SIGSTOP, returning once every thread of the process has stopped: the stop takes effect as each
 * thread is next scheduled, and a read sent right after kill() was answered by jongodb in 2 of 15
 * tries (none once the threads were seen stopped); one run of the fault suite got a 200 from GET
 * /orders with MongoDB "paused".
 */
function stopProcess(child: ChildProcess): void {
  child.kill('SIGSTOP');
  const deadline = Date.now() + 2000;
  while (!allThreadsStopped(child.pid!)) {
    if (Date.now() > deadline) throw new Error(`process ${child.pid} not stopped 2 s after SIGSTOP`);
  }
}

/** Whether /proc shows every thread of `pid` stopped (true where there is no /proc: nothing to wait for). */
function allThreadsStopped(pid: number): boolean {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return true;
  }
  return threads.every((thread) => {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${thread}/stat`, 'utf8');
      return /^[tT]$/.test(stat.charAt(stat.lastIndexOf(')') + 2)); // the state follows "(comm) "
    } catch {
      return true; // the thread ended
    }
  });
}

/** SIGKILL unless it already exited (RedisServer.stop() waits for an exit that, once killed, never comes again). */
async function stopRedis(server: RedisServer): Promise<void> {
  const child = server.process!;
  if (child.exitCode === null && child.signalCode === null) await server.stop();
}

/** SIGTERM with a bounded drain, SIGKILL after it. */
async function stopNode(node: ServerProcess): Promise<void> {
  if (node.child.exitCode !== null || node.child.signalCode !== null) return;
  const timer = setTimeout(() => node.child.kill('SIGKILL'), 3000);
  await node.terminate();
  clearTimeout(timer);
}

/** A courier's own REST API on one node. */
export function courierOn(node: ServerProcess, courier: SeededCourier) {
  const call = (path: string, body?: unknown) => api(`${node.url}/api/v1/couriers/me${path}`, { key: courier.token, ...(body !== undefined && { body }) });
  return {
    duty: (onDuty: boolean) => call('/duty', { on_duty: onDuty }),
    position: (p: LatLng) => call('/location', p),
    status: (orderId: string, status: string) => call(`/orders/${encodeURIComponent(orderId)}/status`, { status }),
  };
}

/** An order body: pickup at `pickup` (coordinates, no geocoding), drop-off in Las Condes. */
export function orderBody(pickup: LatLng, reference = `REF-${Math.random().toString(36).slice(2, 10)}`) {
  return {
    pickup: { address: 'Av. Providencia 1234', coords: pickup },
    dropoff: { address: 'Av. Apoquindo 3000, Las Condes', coords: PLACES.lasCondes },
    customer_name: 'Camila Rojas',
    customer_phone: '+56912345678',
    reference_id: reference,
    total_weight_kg: 1.5,
  };
}

export const quoteBody = { origin: { address: 'coords', coords: PLACES.providencia }, destination: { address: 'coords', coords: PLACES.lasCondes }, total_weight_kg: 1 };

export interface AssignedOrder {
  bookingId: string;
  trackingNumber: string;
  pickup: LatLng;
}

/**
 * Puts `courier` on duty at `pickup` through `node` and creates a test order there with the shop's
 * test key (dispatch, through the shared Redis geo index, gives it to that courier).
 */
export async function assignedOrderOn(node: ServerProcess, cluster: Cluster, courier: SeededCourier, pickup: LatLng): Promise<AssignedOrder> {
  const client = courierOn(node, courier);
  expectStatus(await client.duty(true), 200);
  expectStatus(await client.position(pickup), 200);
  const created = expectStatus(await api(`${node.url}/api/v1/orders`, { key: cluster.shop.testKey, body: orderBody(pickup) }), 201).body;
  if (created.status !== 'assigned') throw new Error(`order ${created.booking_id} is ${created.status}, expected assigned`);
  return { bookingId: created.booking_id, trackingNumber: created.tracking_number, pickup };
}

export function expectStatus<T extends { status: number; body: unknown }>(res: T, status: number): T {
  if (res.status !== status) throw new Error(`expected HTTP ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res;
}

/** A point `fraction` of the way from `from` to Las Condes: far from both stops, so no arrival fires. */
export function along(from: LatLng, fraction: number): LatLng {
  return { lat: from.lat + (PLACES.lasCondes.lat - from.lat) * fraction, lng: from.lng + (PLACES.lasCondes.lng - from.lng) * fraction };
}

/** A tracking socket on `node`, resolved once its first snapshot arrived (it then sees every later event). */
export async function trackOn(node: ServerProcess, trackingNumber: string): Promise<LiveClient> {
  const live = openLive(node.url, trackingNumber);
  await live.waitFor((m) => m.type === 'snapshot', `the tracking snapshot on ${node.url}`);
  return live;
}

/**
 * Reports positions on `reporter` (a new point each try) until `live` receives one of them; returns
 * the point received. Proves the cross-node path end to end, whatever the bus was doing before.
 */
export async function positionReaches(options: {
  reporter: ReturnType<typeof courierOn>;
  live: LiveClient;
  from: LatLng;
  what: string;
  timeoutMs?: number;
}): Promise<LatLng> {
  const { reporter, live, from } = options;
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (let i = 1; ; i++) {
    const point = along(from, 0.2 + (i % 50) / 100);
    expectStatus(await reporter.position(point), 200);
    const seen = await until(() => live.messages.some((m) => m.type === 'position' && m.lat === point.lat && m.lng === point.lng), 'x', 250).catch(() => false);
    if (seen) return point;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${options.what} (${i} positions reported)`);
  }
}

/** A graphql-ws client (the real one) on `node`, authenticated with `key`. */
export function graphqlWsOn(node: ServerProcess, key: string): Client {
  return createClient({
    url: `${node.url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${key}` },
    retryAttempts: 0,
    lazy: true,
  });
}

/** Subscribes and records every result's data; errors are kept for the assertion message. */
export function subscribe<T = Record<string, unknown>>(client: Client, query: string, variables: Record<string, unknown>) {
  const data: T[] = [];
  const errors: unknown[] = [];
  const dispose = client.subscribe<T>(
    { query, variables },
    {
      next: (result) => (result.errors ? errors.push(result.errors) : result.data && data.push(result.data)),
      error: (error) => errors.push(error),
      complete: () => {},
    },
  );
  return { data, errors, dispose };
}

/** GET /api/v1/health on one node. */
export async function healthOf(node: ServerProcess) {
  const res = await api(`${node.url}/api/v1/health`);
  return { status: res.status, body: res.body as { status: string; checks: Record<string, string> } };
}

/**
 * Log lines at error level or above (pino level ≥ 50) a node wrote — unhandled errors, 500s — but
 * the access log writes a deliberate 503 at warn level, so it is not counted.
 */
export function errorLogs(node: ServerProcess): string[] {
  return node
    .output()
    .split('\n')
    .filter((line) => /^\{"level":(5|6)\d,/.test(line));
}

/** A loopback webhook receiver that checks every delivery against the contract and counts each webhook-id. */
export async function startCountingReceiver(): Promise<{ url: string; received: Map<string, number>; close(): Promise<void> }> {
  const received = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      checkWebhookDelivery(req.headers as Record<string, string>, Buffer.concat(chunks).toString('utf8'));
      const id = String(req.headers['webhook-id']);
      received.set(id, (received.get(id) ?? 0) + 1);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
