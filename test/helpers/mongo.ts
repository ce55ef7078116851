import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { skipOrFail } from './fault-suite.js';
import { freePort } from './redis.js';

/** Which server the MongoDB tests run against; `jongodb` lacks features, see test/contract/mongo-store.test.ts. */
export type MongoKind = 'external' | 'jongodb';

export interface MongoServer {
  url: string;
  kind: MongoKind;
  /** The server process when this test started it (fault tests pause it with SIGSTOP). */
  process?: ChildProcess;
  stop(): Promise<void>;
}

/** What global setup hands to test files (must be serialisable). */
export interface ProvidedMongo {
  /** MONGODB_URL; null for jongodb, of which each test file starts its own. */
  url: string | null;
  kind: MongoKind | null;
  skipReason: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    mongo: ProvidedMongo;
  }
}

const JONGODB_PACKAGE = '@jongodb/memory-server-bin-linux-x64-gnu';

export function jongodbBinary(): string | null {
  try {
    const pkg = createRequire(import.meta.url).resolve(`${JONGODB_PACKAGE}/package.json`);
    const bin = join(dirname(pkg), 'bin', 'jongodb');
    return existsSync(bin) ? bin : null;
  } catch {
    return null;
  }
}

/**
 * Starts the jongodb test server on a free port as a single-node replica set (so the driver
 * uses sessions and transactions as it would against MongoDB) and waits for its URI.
 */
export async function startJongodb(binary: string): Promise<MongoServer> {
  const port = await freePort();
  const child = spawn(
    binary,
    [`--port=${port}`, '--host=127.0.0.1', '--database=test', '--replica-set-name=rs0', '--topology-profile=singleNodeReplicaSet'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`jongodb did not start in 15 s: ${stderr}`)), 15_000);
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /JONGODB_URI=(\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('error', (error) => reject(error));
    child.once('exit', (code) => reject(new Error(`jongodb exited with ${code}: ${stderr}`)));
  });
  return {
    url: withPolledMonitoring(url),
    kind: 'jongodb',
    process: child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

/**
 * jongodb breaks the driver's streaming server monitor: with two clients creating indexes at once,
 * a streamed `hello` reply ends with "Server ended moreToCome unexpectedly", the driver marks the
 * server unknown and clears the pool, and every operation in flight fails (two app nodes starting
 * together both exited). Polling monitors (`serverMonitoringMode=poll`) do not stream; a real
 * MongoDB (MONGODB_URL) is left on the driver's default.
 */
function withPolledMonitoring(url: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}serverMonitoringMode=poll`;
}

/**
 * A MongoDB for tests: MONGODB_URL when set (a real server, replica set), else the jongodb test
 * server on a free port, else null with the reason printed (the caller skips); under
 * `REQUIRE_FAULT_SUITE=1` (CI) a missing or failing jongodb throws instead.
 */
export async function acquireMongo(): Promise<{ mongo: MongoServer | null; skipReason: string }> {
  if (process.env.MONGODB_URL) {
    return { mongo: { url: process.env.MONGODB_URL, kind: 'external', stop: async () => {} }, skipReason: '' };
  }
  const binary = jongodbBinary();
  if (!binary) {
    return { mongo: null, skipReason: skipOrFail(`MongoDB tests skipped: no MONGODB_URL and no ${JONGODB_PACKAGE} binary`) };
  }
  try {
    return { mongo: await startJongodb(binary), skipReason: '' };
  } catch (error) {
    return { mongo: null, skipReason: skipOrFail(`MongoDB tests skipped: jongodb failed to start (${(error as Error).message})`) };
  }
}

/**
 * The MongoDB of one test file: MONGODB_URL when set (a real server; use a database name of your
 * own), else a jongodb of the file's own, stopped after the file. jongodb keeps every database in
 * memory until it exits (it has no dropDatabase): one server for the whole run grew until the
 * contract suites ran four times slower late in the run than alone, and missed deadlines. It starts
 * in about 10 ms. Global set-up has checked that it starts (and fails CI if not); call this at the
 * top level of a test file, where `afterAll` can be registered.
 */
export async function mongoForTestFile(): Promise<{ mongo: MongoServer | null; skipReason: string }> {
  const { inject, afterAll } = await import('vitest'); // lazily: global setup imports this file outside a test worker
  const provided = inject('mongo');
  if (!provided) return acquireMongo();
  if (!provided.kind) return { mongo: null, skipReason: provided.skipReason };
  if (provided.kind === 'external') return { mongo: { url: provided.url!, kind: 'external', stop: async () => {} }, skipReason: '' };
  const { mongo, skipReason } = await acquireMongo();
  if (mongo) afterAll(() => mongo.stop());
  return { mongo, skipReason };
}

/**
 * The store deadline (`STORE_TIMEOUT_MS`) of the nodes and stores tests run against jongodb. The
 * production default (1.5 s) is fitted to a real MongoDB; jongodb answers in milliseconds on an idle
 * machine but missed 1.5 s on a busy 2-core one (two contract cases failed with
 * StoreUnavailableError in a full `npm test`). Its nodes get 10 s, or
 * `TEST_JONGODB_STORE_TIMEOUT_MS`; tests that prove the deadline itself (a paused store) set
 * `STORE_TIMEOUT_MS` themselves, and a real MongoDB (MONGODB_URL) keeps the production default.
 */
export function testStoreTimeoutMs(kind: MongoKind): number | undefined {
  if (kind !== 'jongodb') return undefined;
  const given = Number(process.env.TEST_JONGODB_STORE_TIMEOUT_MS);
  return Number.isInteger(given) && given >= 200 ? given : JONGODB_STORE_TIMEOUT_MS;
}
export const JONGODB_STORE_TIMEOUT_MS = 10_000;

/** The environment a node needs to use this server: MONGODB_URL, and on jongodb its store deadline. */
export function mongoNodeEnv(mongo: Pick<MongoServer, 'url' | 'kind'>): { MONGODB_URL: string; STORE_TIMEOUT_MS?: string } {
  const timeout = testStoreTimeoutMs(mongo.kind);
  return { MONGODB_URL: mongo.url, ...(timeout !== undefined && { STORE_TIMEOUT_MS: String(timeout) }) };
}

/** A database name unique to this test file and process: `<prefix>_<pid>_<random>`. */
export function uniqueDbName(prefix: string): string {
  return `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`.slice(0, 60);
}

/**
 * The stores an app-level suite runs on, as `describe.each` rows: SQLite (always) and MongoDB when
 * one is available, each with the environment its app needs (its own database, a master key).
 */
export async function appStores(dbPrefix: string): Promise<Array<[string, Record<string, string>]>> {
  const { mongo } = await mongoForTestFile();
  const onMongo: Record<string, string> | null = mongo
    ? { ...mongoNodeEnv(mongo), MONGODB_DB: uniqueDbName(dbPrefix), MASTER_KEY: randomBytes(32).toString('base64') }
    : null;
  return [['SQLite', {}], ...(onMongo ? [['MongoDB', onMongo] as [string, Record<string, string>]] : [])];
}
