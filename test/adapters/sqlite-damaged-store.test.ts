/**
 * A damaged store is named, not hidden (issue #25 item 7): real store files, emptied, truncated,
 * overwritten or replaced, and real server processes started on them.
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContainer } from '../../src/container.js';
import { loadConfig } from '../../src/config.js';
import { STORE_MARKER_FILE_NAME } from '../../src/adapters/sqlite/integrity.js';
import { SQLITE_FILE_NAME } from '../../src/adapters/sqlite/store.js';
import { api, makeDataDir, startTestApp, type TestApp } from '../helpers/app.js';
import { PROJECT_ROOT } from '../helpers/process.js';

const quiet = (dataDir: string, extra: Record<string, string> = {}) =>
  loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', SEED_DEMO: 'false', SANDBOX_SIMULATOR: 'false', ...extra });

/** A store with one merchant (and its orders' tables), closed: the files an operator would find. */
async function makeStore(): Promise<string> {
  const dataDir = makeDataDir();
  const container = await buildContainer(quiet(dataDir));
  await container.services.admin.createMerchant({ input: { name: 'Damaged Shop', address: 'Av. Providencia 1234, Providencia' } });
  await container.close();
  return dataDir;
}

/** Starts src/main.ts on dataDir and waits for it to exit; fails if it starts listening. */
function startExpectingExit(dataDir: string, env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: PROJECT_ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, SEED_DEMO: 'false', SANDBOX_SIMULATOR: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => {
    output += c.toString();
    if (output.includes('"msg":"listening"')) child.kill('SIGKILL');
  });
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, output })));
}

/** Opening the store in-process (as the server and the admin CLI do): the refusal's message. */
async function refusalOf(dataDir: string): Promise<string> {
  const error = await buildContainer(quiet(dataDir)).then(
    async (container) => {
      await container.close();
      return null;
    },
    (e: unknown) => e as Error,
  );
  expect(error?.name).toBe('DamagedStoreError');
  expect(error!.message).toMatch(/^Refusing to start: .*express-delivery\.sqlite .*Backups and restore/);
  return error!.message;
}

/** The refusal: one line naming the file and the fault, pointing at the backups, and no SQLite stack. */
function expectRefusal(result: { code: number | null; output: string }, fault: RegExp): void {
  expect(result.output).not.toContain('"msg":"listening"');
  expect(result.code).toBe(1);
  const lines = result.output.trim().split('\n');
  expect(lines, result.output).toHaveLength(1);
  expect(lines[0]).toMatch(/^Refusing to start: .*express-delivery\.sqlite/);
  expect(lines[0]).toMatch(fault);
  expect(lines[0]).toContain('Backups and restore');
  expect(lines[0]).not.toMatch(/^\s+at /m);
}

describe('a damaged store at start-up', { timeout: 120_000 }, () => {
  const dirs: string[] = [];
  const store = async () => {
    const dir = await makeStore();
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('a real start on an empty file where a store existed exits 1 with one line; STORE_CREATE=true starts a new one', async () => {
    const dataDir = await store();
    expect(existsSync(join(dataDir, STORE_MARKER_FILE_NAME))).toBe(true);
    writeFileSync(join(dataDir, SQLITE_FILE_NAME), '');
    expectRefusal(await startExpectingExit(dataDir), /is empty \(0 bytes\), but a store was created/);
    expect(statSync(join(dataDir, SQLITE_FILE_NAME)).size).toBe(0);

    const created = await buildContainer(quiet(dataDir, { STORE_CREATE: 'true' }));
    expect((await created.services.health.checkHealth()).status).toBe('ok');
    await created.close();
    expect(statSync(join(dataDir, SQLITE_FILE_NAME)).size).toBeGreaterThan(0);
  });

  it('a missing file where a store existed is refused too; a fresh DATA_DIR starts as before', async () => {
    const dataDir = await store();
    rmSync(join(dataDir, SQLITE_FILE_NAME));
    expect(await refusalOf(dataDir)).toMatch(/is missing, but a store was created/);

    const fresh = makeDataDir();
    dirs.push(fresh);
    const container = await buildContainer(quiet(fresh));
    await container.close();
    expect(existsSync(join(fresh, STORE_MARKER_FILE_NAME))).toBe(true);
  });

  it('a truncated file is named as truncated', async () => {
    const dataDir = await store();
    const file = join(dataDir, SQLITE_FILE_NAME);
    truncateSync(file, Math.floor(statSync(file).size / 2) + 100);
    expect(await refusalOf(dataDir)).toMatch(/is truncated: \d+ bytes on disk/);
  });

  it('a file that is not SQLite (overwritten header) and an SQLite database of something else are refused', async () => {
    const overwritten = await store();
    const fd = openSync(join(overwritten, SQLITE_FILE_NAME), 'r+');
    writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, 0);
    closeSync(fd);
    expect(await refusalOf(overwritten)).toMatch(/is not an SQLite database/);

    const foreign = await store();
    rmSync(join(foreign, SQLITE_FILE_NAME));
    const other = new Database(join(foreign, SQLITE_FILE_NAME));
    other.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices (total) VALUES (9.5)');
    other.close();
    expect(await refusalOf(foreign)).toMatch(/is an SQLite database of something else \(tables invoices/);
    // Nothing was written into the other application's database.
    const after = new Database(join(foreign, SQLITE_FILE_NAME), { readonly: true });
    expect(after.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all()).toEqual(['invoices']);
    after.close();
  });

  it('garbage over pages inside the file: quick_check at start refuses it', async () => {
    const dataDir = await store();
    const file = join(dataDir, SQLITE_FILE_NAME);
    const db = new Database(file);
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    // The merchants table's B-tree page (not page 1: the header and schema stay readable).
    const page = db.prepare<[], number>("SELECT rootpage FROM sqlite_schema WHERE name = 'merchants'").pluck().get()!;
    expect(page).toBeGreaterThan(1);
    db.close();
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (page - 1) * pageSize);
    closeSync(fd);
    expectRefusal(await startExpectingExit(dataDir), /is damaged \((quick_check|SQLite)/);
  });
});

describe('corruption met while serving', { timeout: 60_000 }, () => {
  let t: TestApp;
  let merchantKey: string;
  beforeAll(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_PER_MIN: '100000' } });
    merchantKey = (await t.createMerchant()).testKey;
  });
  afterAll(async () => {
    await t.stop();
    rmSync(t.dataDir, { recursive: true, force: true });
  });

  it('answers 503 (not 500) and /health turns degraded with the reason', async () => {
    expect((await api(`${t.url}/api/v1/health`)).body.status).toBe('ok');
    expect((await api(`${t.url}/api/v1/orders`, { key: merchantKey })).status).toBe(200);
    // Garbage over the orders table's root page, written by another process's hand, with the
    // serving connection's page cache dropped so that it reads the page again.
    const file = join(t.dataDir, SQLITE_FILE_NAME);
    const probe = new Database(file);
    probe.pragma('wal_checkpoint(TRUNCATE)');
    const pageSize = probe.pragma('page_size', { simple: true }) as number;
    const pages = probe.prepare<[], number>("SELECT rootpage FROM sqlite_schema WHERE tbl_name = 'orders' AND rootpage > 0").pluck().all();
    probe.close();
    const fd = openSync(file, 'r+');
    for (const page of pages) writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (page - 1) * pageSize);
    closeSync(fd);
    // Another connection's commit moves the file's change counter: the server drops its cache.
    const writer = new Database(file);
    writer.exec('CREATE TABLE IF NOT EXISTS poke (x); DROP TABLE poke;');
    writer.close();

    const res = await api(`${t.url}/api/v1/orders`, { key: merchantKey });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(res.headers.get('retry-after')).toBe('5');
    const health = await api(`${t.url}/api/v1/health`);
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('degraded');
    expect(health.body.checks.store).toBe('degraded');
    expect(health.body.reasons.store).toMatch(/SQLite file is damaged .*restore it from a backup/);
  });
});
