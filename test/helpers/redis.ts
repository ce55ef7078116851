import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAULT_SUITE_REQUIRED, skipOrFail } from './fault-suite.js';

export interface RedisServer {
  url: string;
  /** Present when the test started its own redis-server (restart tests need one they own). */
  process?: ChildProcess;
  port: number;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Whether redis-server is on PATH; the Redis suites skip when it is not. Under
 * `REQUIRE_FAULT_SUITE=1` (CI) a missing binary throws instead (see fault-suite.ts).
 */
export function hasRedisServerBinary(): boolean {
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0) return true;
  if (FAULT_SUITE_REQUIRED) skipOrFail('Redis tests skipped: no redis-server on PATH');
  return false;
}

/** Starts a private redis-server on a free port (no persistence) and waits until it answers. */
export async function startRedisServer(port?: number): Promise<RedisServer> {
  const p = port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'exd-redis-'));
  const child = spawn('redis-server', ['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('redis-server did not start')), 10_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
  return {
    url: `redis://127.0.0.1:${p}`,
    process: child,
    port: p,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

/**
 * A Redis for tests: REDIS_URL when set, else a private redis-server from PATH, else null — the
 * caller skips with the returned reason (so `npm test` passes where Redis is missing; under
 * `REQUIRE_FAULT_SUITE=1`, as in CI, it throws instead).
 */
export async function acquireRedis(): Promise<{ redis: RedisServer | null; skipReason: string }> {
  if (process.env.REDIS_URL) {
    return { redis: { url: process.env.REDIS_URL, port: Number(new URL(process.env.REDIS_URL).port || 6379), stop: async () => {} }, skipReason: '' };
  }
  if (!hasRedisServerBinary()) {
    return { redis: null, skipReason: skipOrFail('Redis tests skipped: no REDIS_URL and no redis-server on PATH') };
  }
  return { redis: await startRedisServer(), skipReason: '' };
}
