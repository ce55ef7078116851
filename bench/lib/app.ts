import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { buildContainer, type Container } from '../../src/container.js';
import { benchSettings, type BenchSettings } from './options.js';
import { PROJECT_ROOT, spawnServer, type ServerProcess } from './processes.js';
import { inspectorUrlFrom, profileWhile, summarizeProfile, type ProfileSummary } from './profile.js';

export interface BenchMerchant {
  merchantId: string;
  liveKey: string;
  testKey: string;
}

export interface RunningApp {
  server: ServerProcess;
  merchant: BenchMerchant;
  dataDir: string;
  logFile: string;
  /** Size of the app's log so far (every request logs one access-log line at info). */
  logBytes(): number;
  /**
   * Runs `load` while a CPU profile of the app is taken (over its inspector) and returns the
   * summary; null unless BENCH_PROFILE=1. Never inside a measured window, but the app then runs
   * with --inspect, which slows it: a profiled run's figures are not comparable.
   */
  profile(load: () => Promise<unknown>): Promise<ProfileSummary | null>;
  /** Stops the app and removes its data directory (unless BENCH_KEEP_DATA is set). */
  stop(): Promise<void>;
}

export interface StartAppOptions {
  merchant: { name: string; address: string };
  /** Raised through the per-merchant override; the limiter still runs on every request. */
  rateLimitPerMin: number;
  /** Extra node flags for the app process, e.g. ['--cpu-prof', '--cpu-prof-dir=…']. */
  nodeArgs?: string[];
  /** Extra environment for the app process (e.g. SANDBOX_SIMULATOR=false), over the defaults below. */
  env?: Record<string, string>;
  /** `dist` (default, from `--runtime`/BENCH_RUNTIME): `node dist/src/main.js`, built first if stale; `tsx`: `tsx src/main.ts`. */
  runtime?: Runtime;
  /** Runs on the app's store before the app process starts (and before it holds the SQLite file). */
  seed?: (container: Container, merchant: BenchMerchant) => Promise<void>;
}

/**
 * Runs the real app (compiled `dist/src/main.js`, or `src/main.ts` under tsx; embedded mode: SQLite file in a temp DATA_DIR, LOG_LEVEL=info,
 * logs to a file in that directory) in its own process. The benchmark merchant is created first
 * through the admin service on the same store, with its rate limit raised by setMerchantRateLimit.
 */
export async function startApp(options: StartAppOptions): Promise<RunningApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-app-'));
  const logFile = join(dataDir, 'app.log');
  const env = { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', SEED_DEMO: 'false', NODE_ENV: 'production', ...options.env };

  const container = await buildContainer(loadConfig(env), { logger: pino({ level: 'silent' }) });
  let merchant: BenchMerchant;
  try {
    const { admin } = container.services;
    const created = await admin.createMerchant({ input: options.merchant });
    await admin.setMerchantRateLimit({ input: { merchantId: created.merchantId, perMin: options.rateLimitPerMin } });
    merchant = { merchantId: created.merchantId, liveKey: created.liveKey, testKey: created.testKey };
    await options.seed?.(container, merchant);
  } finally {
    await container.close();
  }

  // Opt-in: an app started with --inspect is measurably slower even with no session attached
  // (order read 291 → 435 µs of server CPU per request), so profiles come from a separate run.
  const profiling = process.env.BENCH_PROFILE === '1';
  const nodeArgs = [...(profiling ? ['--inspect=127.0.0.1:0'] : []), ...(options.nodeArgs ?? [])];
  const server = await spawnServer({ script: appScript(options.runtime), env, ready: 'log', logFile, nodeArgs });
  return {
    server,
    async profile(load) {
      const url = profiling ? inspectorUrlFrom(logFile) : null;
      if (!url) {
        await load();
        return null;
      }
      return summarizeProfile((await profileWhile(url, load)).profile);
    },
    merchant,
    dataDir,
    logFile,
    logBytes: () => statSync(logFile).size,
    async stop() {
      await server.stop();
      if (!process.env.BENCH_KEEP_DATA) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

type Runtime = NonNullable<BenchSettings['runtime']>;

/**
 * The app's entry point for spawnServer under `runtime` (default: `--runtime`/BENCH_RUNTIME, else
 * dist): `dist/src/main.js`, built first when stale, or `src/main.ts` (run under tsx).
 */
export function appScript(runtime: Runtime = benchSettings().runtime ?? 'dist'): string {
  if (runtime === 'tsx') return 'src/main.ts';
  ensureBuild();
  return BUILT_MAIN;
}

const BUILT_MAIN = 'dist/src/main.js';
let built = false;

/** Runs `npm run build` when dist/ is missing or older than any file it is built from (checked once per process). */
function ensureBuild(): void {
  if (built) return;
  const at = (file: string) => statSync(join(PROJECT_ROOT, file)).mtimeMs;
  const builtAt = existsSync(join(PROJECT_ROOT, BUILT_MAIN)) ? at(BUILT_MAIN) : 0;
  const sources = ['src', 'rest', 'schema', 'realtime'].flatMap((dir) => readdirSync(join(PROJECT_ROOT, dir), { recursive: true, encoding: 'utf8' }).map((f) => join(dir, f)));
  const newest = Math.max(...[...sources, 'package.json', 'tsconfig.json', 'tsconfig.build.json'].map(at));
  if (newest > builtAt) {
    console.log('bench: dist/ is missing or older than the sources: npm run build');
    const run = spawnSync('npm', ['run', '--silent', 'build'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
    if (run.status !== 0) throw new Error('npm run build failed');
  }
  built = true;
}
