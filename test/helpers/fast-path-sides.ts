import { rmSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildContainer, type Container } from '../../src/container.js';
import type { Edge } from '../../src/edge/edge.js';
import { createLogger } from '../../src/logger.js';
import type { IdSource } from '../../src/ports/ids.js';
import { ADMIN_TOKEN, makeDataDir } from './app.js';

/** Ids that two stores give out alike when asked in the same order. */
export function sequentialIds(): IdSource {
  let n = 0;
  return {
    next: (prefix) => `${prefix}_${String(++n).padStart(6, '0')}`,
    orderNumber: () => String(1_000_000_000 + ++n),
    trackingNumber: () => `EXD-${String(++n).padStart(12, '0')}`,
  };
}

/**
 * For a fast path's equivalence suite: starts one side with the fast path and one without (each on
 * its own store, with sequentialIds) under a frozen clock, since timestamps, quote expiry and
 * rate-limit resets read it; stops both after the suite.
 */
export function fastAndPlainSides<S extends { stop(): Promise<void> }>(start: (fastPath: boolean) => Promise<S>): { fast: () => S; plain: () => S } {
  let sides: [S, S] | undefined;
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-26T10:00:00Z') });
    sides = await Promise.all([start(true), start(false)]);
  });
  afterAll(async () => {
    await Promise.all((sides ?? []).map((side) => side.stop()));
    vi.useRealTimers();
  });
  return { fast: () => sides![0], plain: () => sides![1] };
}

export interface EdgeServer {
  url: string;
  admin: Container['services']['admin'];
  stop(): Promise<void>;
}

/** A store on disk (sequentialIds) and a node:http server on a free port running what `listener` builds from the edge. */
export async function startEdgeServer(listener: (edge: Edge) => RequestListener, env: Record<string, string> = {}): Promise<EdgeServer> {
  const dataDir = makeDataDir();
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_TOKEN, LOG_LEVEL: 'silent', SEED_DEMO: 'false', SANDBOX_SIMULATOR: 'false', POSITION_MAX_SPEED_KMH: 'off', ...env });
  const container = await buildContainer(config, { logger: createLogger({ level: 'silent' }), ids: sequentialIds() });
  const server: Server = createServer(listener({ services: container.services, config, logger: container.logger, door: container.door }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    admin: container.services.admin,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await container.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A JSON answer with the rate-limit, security and content headers that both fast paths set. */
export function expectJsonApiHeaders(res: { headers: Record<string, string>; body: string }): void {
  expect(res.headers).toMatchObject({
    'content-type': 'application/json; charset=utf-8',
    'ratelimit-limit': '120',
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  });
  expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.body)));
}
