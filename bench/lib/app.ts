import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { buildContainer, type Container } from '../../src/container.js';
import { spawnServer, type ServerProcess } from './processes.js';

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
  /** Runs on the app's store before the app process starts (and before it holds the SQLite file). */
  seed?: (container: Container, merchant: BenchMerchant) => Promise<void>;
}

/**
 * Runs the real app (`src/main.ts`, embedded mode: SQLite file in a temp DATA_DIR, LOG_LEVEL=info,
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

  const server = await spawnServer({ script: 'src/main.ts', env, ready: 'log', logFile, nodeArgs: options.nodeArgs ?? [] });
  return {
    server,
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
