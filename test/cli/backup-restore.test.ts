/**
 * Hot backup and restore (issue #25 item 5): `admin backup` copies the store of a real server
 * process while clients keep creating orders through the API; the copy, restored into a new
 * DATA_DIR, starts a server (with the copied master key) that holds every order acknowledged
 * before the backup began.
 */
import { spawn } from 'node:child_process';
import { cpSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContainer } from '../../src/container.js';
import { loadConfig } from '../../src/config.js';
import { api, makeDataDir, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { PROJECT_ROOT, spawnServer, type ServerProcess } from '../helpers/process.js';
import { formB } from '../orders/support.js';

const CLIENTS = 4;
const env = (dataDir: string) => ({ DATA_DIR: dataDir, RATE_LIMIT_PER_MIN: '1000000' });

function backup(dataDir: string, out: string): Promise<{ code: number | null; out: Record<string, unknown> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/admin-cli.ts', 'backup', '--out', out, '--json'], {
    cwd: PROJECT_ROOT,
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, out: JSON.parse(stdout) as Record<string, unknown> })));
}

describe('admin backup of a busy store, restored', { timeout: 120_000 }, () => {
  const dataDir = makeDataDir();
  const backupDir = join(makeDataDir(), 'backup');
  const restoredDir = makeDataDir();
  let merchant: MerchantCredentials;
  let node: ServerProcess | null = null;
  let restored: TestApp | null = null;

  beforeAll(async () => {
    const container = await buildContainer(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', SEED_DEMO: 'false', SANDBOX_SIMULATOR: 'false' }));
    merchant = await container.services.admin.createMerchant({ input: { name: 'Backup Shop', address: 'Av. Providencia 1234, Providencia' } });
    await container.close();
    node = await spawnServer(env(dataDir), { startTimeoutMs: 60_000 });
  });
  afterAll(async () => {
    await node?.kill();
    await restored?.stop();
    for (const dir of [dataDir, join(backupDir, '..'), restoredDir]) rmSync(dir, { recursive: true, force: true });
  });

  it('the copy taken under write load holds every order acknowledged before it began, and opens with its key', async () => {
    /** Booking id → the order notes it was created with, in acknowledgement order, with the time. */
    const acknowledged: Array<{ id: string; notes: string; at: number }> = [];
    let stop = false;
    let failures = 0;
    const client = async (c: number) => {
      for (let i = 0; !stop; i++) {
        const notes = `backup-${c}-${i}`;
        const res = await api(`${node!.url}/api/v1/orders`, { key: merchant.testKey, headers: { 'idempotency-key': notes }, body: formB({ order_notes: notes }) });
        if (res.status === 201) acknowledged.push({ id: res.body.booking_id as string, notes, at: performance.now() });
        else failures++;
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
    while (acknowledged.length < 20) await new Promise((r) => setTimeout(r, 100));

    const began = performance.now();
    const result = await backup(dataDir, backupDir);
    // Creates went on during the copy, acknowledged by the server meanwhile.
    const during = acknowledged.filter((o) => o.at > began).length;
    stop = true;
    await Promise.all(clients);
    expect(result.code, JSON.stringify(result.out)).toBe(0);
    expect(result.out).toMatchObject({ success: true, master_key: join(backupDir, 'master.key') });
    expect(during).toBeGreaterThan(0);
    expect(failures).toBe(0);
    expect(statSync(join(backupDir, 'master.key')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(backupDir, 'master.key'), 'utf8')).toBe(readFileSync(join(dataDir, 'master.key'), 'utf8'));

    // Restore: the backup's files in an empty DATA_DIR, a server started on it (in this process:
    // the start-up checks, master key check included, are the same as in a server process).
    cpSync(backupDir, restoredDir, { recursive: true });
    restored = await startTestApp({ dataDir: restoredDir, env: { RATE_LIMIT_PER_MIN: '1000000' } });
    const before = acknowledged.filter((o) => o.at <= began);
    expect(before.length).toBeGreaterThanOrEqual(20);
    for (const order of before) {
      const res = await api(`${restored.url}/api/v1/orders/${order.id}`, { key: merchant.testKey });
      expect(res.status, order.notes).toBe(200);
      expect(res.body.order_notes).toBe(order.notes);
    }
    expect(Number(result.out.orders)).toBeGreaterThanOrEqual(before.length);
    // The API secret (encrypted under the master key) still opens: the copied key is the store's.
    const me = await api(`${restored.url}/api/v1/merchants/me`, { key: merchant.testKey });
    expect(me.status).toBe(200);
  });
});
