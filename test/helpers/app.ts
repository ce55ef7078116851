import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/logger.js';
import type { Clock } from '../../src/ports/clock.js';
import type { IdSource } from '../../src/ports/ids.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestApp {
  app: App;
  url: string;
  dataDir: string;
  /** Creates a merchant through the admin service; returns its one-time credentials. */
  createMerchant(options?: { name?: string; address?: string; approveIntegrations?: boolean }): Promise<MerchantCredentials>;
  stop(): Promise<void>;
}

export interface MerchantCredentials {
  merchantId: string;
  liveKey: string;
  testKey: string;
  apiSecret: string;
}

export function makeDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'exd-test-'));
}

/** The app in-process on a free port, with its SQLite file on disk in a fresh directory. */
export async function startTestApp(
  options: { env?: Record<string, string>; dataDir?: string; logger?: Logger; clock?: Clock; ids?: IdSource } = {},
): Promise<TestApp> {
  const dataDir = options.dataDir ?? makeDataDir();
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ADMIN_TOKEN,
    LOG_LEVEL: 'silent',
    SEED_DEMO: 'false',
    SANDBOX_SIMULATOR: 'false',
    SHUTDOWN_GRACE_MS: '2000',
    // Sign-in hashing yields to request handling in production (niceness 10); on a test machine busy
    // with other suites that starves a sign-in for seconds. The hasher's own tests set it.
    PASSWORD_HASH_NICENESS: '0',
    // Tests move couriers between places in an instant; the plausibility rule's own tests turn it on.
    POSITION_MAX_SPEED_KMH: 'off',
    // The suites written before issue #37 expect a live order with a prep time to be dispatched at
    // creation; the default policy (planned) holds it for the periodic round. The dispatch suites
    // (test/dispatch/) set DISPATCH_POLICY=planned themselves.
    DISPATCH_POLICY: 'greedy',
    ...options.env,
  });
  const app = await buildApp({
    config,
    overrides: { logger: options.logger ?? createLogger({ level: config.logLevel }), ...(options.clock && { clock: options.clock }), ...(options.ids && { ids: options.ids }) },
  });
  const { url } = await app.start();
  const { admin } = app.container.services;
  return {
    app,
    url,
    dataDir,
    async createMerchant({ name = 'Test Merchant', address = 'Av. Providencia 1234, Providencia', approveIntegrations = true } = {}) {
      const created = await admin.createMerchant({ input: { name, address } });
      if (approveIntegrations) {
        for (const integration of ['plugin', 'storefront', 'erp'] as const) {
          await admin.setIntegrationStatus({ input: { merchantId: created.merchantId, integration, status: 'approved' } });
        }
      }
      return created;
    },
    async stop() {
      await app.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** fetch with JSON helpers; returns status, headers and the parsed body. */
export async function api(
  url: string,
  init: { method?: string; key?: string; headers?: Record<string, string>; body?: unknown; rawBody?: string } = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the parsed JSON freely
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  let body: string | undefined = init.rawBody;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(url, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** A GraphQL request over HTTP. */
export async function gql(url: string, query: string, options: { key?: string; variables?: Record<string, unknown> } = {}) {
  return api(`${url}/graphql`, { method: 'POST', ...(options.key && { key: options.key }), body: { query, variables: options.variables } });
}
