/**
 * Production mode (NODE_ENV=production) as an attacker or an operator sees it, on the real server
 * in its own process: nothing seeded unless asked, no live key or signing secret on the log stream
 * (stdout/stderr), /metrics behind METRICS_TOKEN (404 without one), and DATA_DIR private on disk
 * (0700, files 0600) in every mode, tightening what an older version left open.
 */
import Database from 'better-sqlite3';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SQLITE_FILE_NAME } from '../../src/adapters/sqlite/store.js';
import { DEMO_CREDENTIALS_FILE } from '../../src/domain/seed.js';
import { errorResponseSchema } from '../../rest/openapi/registry.js';
import { api, makeDataDir } from '../helpers/app.js';
import { expectWireShape } from '../helpers/openapi.js';
import { spawnServer, type ServerProcess } from '../helpers/process.js';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
const SECRET_MARKERS = ['ak_live_', 'whsec_', 'ak_test_'];

const modeOf = (path: string) => statSync(path).mode & 0o777;

function merchantCount(dataDir: string): number {
  const db = new Database(join(dataDir, SQLITE_FILE_NAME), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM merchants').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

async function waitForOutput(server: ServerProcess, text: string): Promise<void> {
  const until = Date.now() + 15_000;
  while (!server.output().includes(text)) {
    if (Date.now() > until) throw new Error(`"${text}" never appeared:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('production mode', () => {
  const dirs: string[] = [];
  let server: ServerProcess | null = null;
  afterEach(async () => {
    await server?.kill().catch(() => undefined);
    server = null;
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const freshDir = () => {
    const parent = makeDataDir();
    dirs.push(parent);
    return join(parent, 'data', 'nested'); // created by the server itself
  };

  it('seeds nothing and prints no credential; /metrics does not exist without METRICS_TOKEN; data files are owner-only', async () => {
    const dataDir = freshDir();
    // SEED_DEMO empty = unset: the default follows NODE_ENV.
    server = await spawnServer({ NODE_ENV: 'production', DATA_DIR: dataDir, SEED_DEMO: '' });

    const metrics = await api(`${server.url}/metrics`);
    expect(metrics.status).toBe(404);
    expectWireShape(errorResponseSchema, metrics.body);
    expect(metrics.body.error.code).toBe('NOT_FOUND');
    expect((await api(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(404);
    expect((await api(`${server.url}/api/v1/health`)).status).toBe(200);

    expect(modeOf(dataDir)).toBe(0o700);
    for (const file of [SQLITE_FILE_NAME, `${SQLITE_FILE_NAME}-wal`, `${SQLITE_FILE_NAME}-shm`, 'master.key']) {
      expect(modeOf(join(dataDir, file)), file).toBe(0o600);
    }

    expect(await server.terminate()).toBe(0);
    const output = server.output();
    server = null;
    for (const marker of SECRET_MARKERS) expect(output).not.toContain(marker);
    expect(output).not.toContain('Demo merchant');
    expect(merchantCount(dataDir)).toBe(0);
    expect(existsSync(join(dataDir, DEMO_CREDENTIALS_FILE))).toBe(false);
  });

  it('SEED_DEMO=true in production writes the credentials to an owner-only file and logs only its path', async () => {
    const dataDir = freshDir();
    server = await spawnServer({ NODE_ENV: 'production', DATA_DIR: dataDir, SEED_DEMO: 'true', METRICS_TOKEN });
    await waitForOutput(server, 'demo merchant seeded');
    const file = join(dataDir, DEMO_CREDENTIALS_FILE);
    expect(modeOf(file)).toBe(0o600);
    const credentials = readFileSync(file, 'utf8');
    const liveKey = /ak_live_\S+/.exec(credentials)?.[0];
    expect(liveKey).toBeDefined();
    expect(credentials).toMatch(/whsec_\S+/);
    // The seeded live key works: it is a real merchant, whose sandbox drives slowly enough to watch.
    const me = await api(`${server.url}/api/v1/merchants/me`, { key: liveKey! });
    expect(me.status).toBe(200);
    expect(JSON.stringify(me.body)).toContain('"sandbox_speed":2');

    // /metrics with the token only; a wrong or missing one is 401 in the error shape.
    for (const authorization of [undefined, 'Bearer wrong-token-0123456789abcdef', `Basic ${METRICS_TOKEN}`, `Bearer ${METRICS_TOKEN}x`, `Bearer ${liveKey}`]) {
      const res = await api(`${server.url}/metrics`, { headers: authorization ? { authorization } : {} });
      expect(res.status, String(authorization)).toBe(401);
      expectWireShape(errorResponseSchema, res.body);
      expect(res.headers.get('www-authenticate')).toContain('Bearer');
    }
    const ok = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('http_request_duration_seconds');

    expect(await server.terminate()).toBe(0);
    const output = server.output();
    server = null;
    for (const marker of SECRET_MARKERS) expect(output).not.toContain(marker);
    expect(output).not.toContain(METRICS_TOKEN);
    expect(output).toContain(file);
  });

  it('development (the default) still seeds and prints the demo credentials once and keeps /metrics open; an old, open DATA_DIR is tightened', async () => {
    const dataDir = freshDir();
    // What an older version left: a world-readable directory, database and master key.
    mkdirSync(dataDir, { recursive: true, mode: 0o755 });
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, 'master.key'), Buffer.alloc(32, 7).toString('base64'), { mode: 0o644 });
    new Database(join(dataDir, SQLITE_FILE_NAME)).close();
    chmodSync(join(dataDir, SQLITE_FILE_NAME), 0o644);

    server = await spawnServer({ DATA_DIR: dataDir, SEED_DEMO: '' });
    await waitForOutput(server, 'Demo merchant created');
    expect(server.output()).toMatch(/ak_live_/);
    expect((await api(`${server.url}/metrics`)).status).toBe(200);
    expect(modeOf(dataDir)).toBe(0o700);
    for (const file of [SQLITE_FILE_NAME, `${SQLITE_FILE_NAME}-wal`, `${SQLITE_FILE_NAME}-shm`, 'master.key']) {
      expect(modeOf(join(dataDir, file)), file).toBe(0o600);
    }
    expect(await server.terminate()).toBe(0);
    server = null;
    expect(merchantCount(dataDir)).toBe(1);
  });
});
