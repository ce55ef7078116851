import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox, hashToken } from '../../src/domain/credentials.js';
import { api, makeDataDir, startTestApp, type TestApp } from '../helpers/app.js';
import { PROJECT_ROOT } from '../helpers/process.js';

const ruts = JSON.parse(readFileSync(new URL('../fixtures/rut-samples.json', import.meta.url), 'utf8')) as {
  valid: { rut: string }[];
  invalid: { rut: string }[];
};

interface CliRun {
  code: number | null;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON, asserted field by field
  out: any;
  stderr: string;
}

/** Runs the real CLI against dataDir; fails unless stdout is exactly one line holding one JSON object. */
function runCli(dataDir: string, args: string[]): Promise<CliRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/admin-cli.ts', ...args], {
    cwd: PROJECT_ROOT,
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      const lines = stdout.split('\n');
      if (lines.length !== 2 || lines[1] !== '' || !lines[0]!.startsWith('{')) {
        return reject(new Error(`stdout is not one JSON line:\n${stdout}\nstderr:\n${stderr}`));
      }
      resolve({ code, out: JSON.parse(lines[0]!), stderr });
    });
  });
}

// Each test spawns the CLI a few times (~0.5 s each on an idle machine).
describe('admin CLI (npm run admin)', { timeout: 60_000 }, () => {
  const dataDir = makeDataDir();
  const cli = (...args: string[]) => runCli(dataDir, [...args, '--json']);
  let t: TestApp;
  let shop: { merchant_id: string; live_key: string; test_key: string; api_secret: string };
  const me = (key: string) => api(`${t.url}/api/v1/merchants/me`, { key });
  const saveSettings = (key: string) => api(`${t.url}/api/v1/merchants/settings`, { key, body: { prep_time_mins: 5 } });
  const openDb = () => new Database(join(dataDir, 'express-delivery.sqlite'), { readonly: true, fileMustExist: true });

  beforeAll(async () => {
    t = await startTestApp({ dataDir });
  });
  afterAll(async () => {
    await t.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('merchant:create prints the credentials as the only stdout line; the running server accepts its keys', async () => {
    const run = await cli('merchant:create', '--name', 'CLI Shop', '--address', 'Av. Providencia 1234, Providencia');
    expect(run.code).toBe(0);
    expect(run.out).toEqual({
      success: true,
      merchant_id: expect.stringMatching(/^m_/),
      live_key: expect.stringMatching(/^ak_live_[0-9A-Za-z]{32}$/),
      test_key: expect.stringMatching(/^ak_test_[0-9A-Za-z]{32}$/),
      api_secret: expect.stringMatching(/^whsec_/),
    });
    expect(run.stderr).toContain('"msg":"admin command completed"');
    shop = run.out;

    const res = await me(shop.test_key);
    expect(res.status).toBe(200);
    expect(res.body.merchant).toMatchObject({ id: shop.merchant_id, name: 'CLI Shop', mode: 'test', status: 'active' });
    expect((await me(shop.live_key)).status).toBe(200);
  });

  it('stores keys only as SHA-256 hashes and the API secret encrypted with the shared master key', () => {
    const db = openDb();
    try {
      const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all() as string[];
      const dump = tables.map((table) => JSON.stringify(db.prepare(`SELECT * FROM "${table}"`).all())).join('\n');
      for (const plain of [shop.live_key, shop.test_key, shop.api_secret, shop.api_secret.slice('whsec_'.length)]) {
        expect(dump).not.toContain(plain);
      }
      const hashes = db.prepare('SELECT hash FROM api_keys WHERE merchant_id = ?').pluck().all(shop.merchant_id);
      expect(new Set(hashes)).toEqual(new Set([hashToken(shop.live_key), hashToken(shop.test_key)]));
      expect(hashToken(shop.test_key)).toMatch(/^[0-9a-f]{64}$/);

      const sealed = db.prepare('SELECT ciphertext FROM merchant_secrets WHERE merchant_id = ?').pluck().get(shop.merchant_id) as string;
      const masterKey = Buffer.from(readFileSync(join(dataDir, 'master.key'), 'utf8'), 'base64');
      expect(createSecretBox(masterKey).open(sealed)).toBe(shop.api_secret);
    } finally {
      db.close();
    }
  });

  it('key:revoke and key:rotate take effect on the running server at once', async () => {
    const revoked = await cli('key:revoke', '--merchant', shop.merchant_id, '--mode', 'test');
    expect(revoked.out).toEqual({ success: true, merchant_id: shop.merchant_id, mode: 'test', revoked: 1 });
    const rejected = await me(shop.test_key);
    expect(rejected.status).toBe(401);
    expect(rejected.body.error.code).toBe('INVALID_API_KEY');
    expect((await me(shop.live_key)).status).toBe(200);

    const rotated = await cli('key:rotate', '--merchant', shop.merchant_id, '--mode', 'live');
    expect(rotated.code).toBe(0);
    expect(rotated.out).toEqual({
      success: true, merchant_id: shop.merchant_id, mode: 'live', api_key: expect.stringMatching(/^ak_live_/), revoked: 1,
    });
    expect((await me(rotated.out.api_key)).status).toBe(200);
    expect((await me(shop.live_key)).status).toBe(401);
    shop.live_key = rotated.out.api_key;
  });

  it('merchant:suspend blocks operations with ACCOUNT_SUSPENDED but not the profile; review and activate', async () => {
    const suspended = await cli('merchant:suspend', '--merchant', shop.merchant_id);
    expect(suspended.out).toEqual({ success: true, merchant_id: shop.merchant_id, status: 'suspended' });
    const blocked = await saveSettings(shop.live_key);
    expect(blocked.status).toBe(403);
    expect(blocked.body.error.code).toBe('ACCOUNT_SUSPENDED');
    const profile = await me(shop.live_key);
    expect(profile.status).toBe(200);
    expect(profile.body.merchant.status).toBe('suspended');

    const review = await cli('merchant:review', '--merchant', shop.merchant_id);
    expect(review.out).toEqual({ success: true, merchant_id: shop.merchant_id, status: 'in_review' });
    expect((await me(shop.live_key)).body.merchant.review_status).toBe('in_review');

    const active = await cli('merchant:activate', '--merchant', shop.merchant_id);
    expect(active.out).toEqual({ success: true, merchant_id: shop.merchant_id, status: 'active' });
    expect((await saveSettings(shop.live_key)).status).toBe(200);
  });

  it('integration:approve/reject, merchant:rate-limit, secret:rotate and merchant:list', async () => {
    const m = shop.merchant_id;
    // Integration and rate-limit updates rewrite the same merchant document: run them in order.
    const updates = async () => [
      await cli('integration:approve', '--merchant', m, '--integration', 'plugin'),
      await cli('integration:reject', '--merchant', m, '--integration', 'erp'),
      await cli('merchant:rate-limit', '--merchant', m, '--per-min', '30'),
      await cli('merchant:notification-countries', '--merchant', m, '--countries', '56,+54'),
    ];
    const [[approved, rejected, limited, countries], secret, list] = await Promise.all([
      updates(),
      cli('secret:rotate', '--merchant', m, '--overlap-hours', '2'),
      cli('merchant:list', '--limit', '1'),
    ]);
    expect(approved!.out).toEqual({ success: true, merchant_id: m, integration: 'plugin', status: 'approved' });
    expect(rejected!.out).toEqual({ success: true, merchant_id: m, integration: 'erp', status: 'rejected' });
    expect(limited!.out).toMatchObject({ success: true, merchant_id: m, rate_limit_per_min: 30 });
    expect(countries!.out).toEqual({ success: true, merchant_id: m, notification_countries: ['54', '56'] });
    const profile = (await me(shop.live_key)).body.merchant;
    expect(profile.integrations).toEqual({ plugin: 'approved', storefront: 'pending_approval', erp: 'rejected' });
    expect(profile.rate_limit_per_min).toBe(30);
    const reset = await cli('merchant:rate-limit', '--merchant', m, '--per-min', 'default');
    expect(reset.out).toEqual({ success: true, merchant_id: m, rate_limit_per_min: 120, uses_default: true });

    expect(secret.out).toEqual({ success: true, merchant_id: m, api_secret: expect.stringMatching(/^whsec_/), previous_expires_at: expect.any(String) });
    expect(secret.out.api_secret).not.toBe(shop.api_secret);
    const db = openDb();
    const secrets = db.prepare('SELECT expires_at FROM merchant_secrets WHERE merchant_id = ? ORDER BY created_at').pluck().all(m);
    db.close();
    expect(secrets).toEqual([secret.out.previous_expires_at, null]);
    const overlapMs = Date.parse(secret.out.previous_expires_at) - Date.now();
    expect(overlapMs).toBeGreaterThan(3_600_000);
    expect(overlapMs).toBeLessThanOrEqual(7_200_000);

    expect(list.out.merchants).toHaveLength(1);
    expect(list.out.merchants[0]).toMatchObject({ id: m, name: 'CLI Shop' });
    expect(list.out.next_after).toBe(m);
    expect(JSON.stringify(list.out)).not.toMatch(/ak_(live|test)_|whsec_|hash|secret/);
  });

  it('courier:create and user:create', async () => {
    const [courier, user] = await Promise.all([
      cli('courier:create', '--name', 'Ana Rider', '--phone', '+56 9 1234 5678', '--vehicle', 'motorcycle', '--plate', 'ab12cd', '--mode', 'test'),
      cli('user:create', '--rut', ruts.valid[0]!.rut, '--name', 'Juan Pérez', '--phone', '+56912345678'),
    ]);
    expect(courier.out).toEqual({ success: true, courier_id: expect.stringMatching(/^cr_/), token: expect.stringMatching(/^ct_/), mode: 'test',
      sign_in_url: expect.stringMatching(/\/courier\/welcome#code=cc_[A-Za-z0-9_-]{43}$/), sign_in_expires_at: expect.any(String),
    });
    expect(user.out).toEqual({ success: true, user_id: expect.stringMatching(/^usr_/), rut: '12345678-5' });

    const db = openDb();
    const row = db.prepare('SELECT token_hash, doc FROM couriers WHERE id = ?').get(courier.out.courier_id) as { token_hash: string; doc: string };
    db.close();
    expect(row.token_hash).toBe(hashToken(courier.out.token));
    expect(JSON.parse(row.doc)).toMatchObject({ phone: '+56912345678', vehicle: 'motorcycle', plate: 'AB12CD' });

    const again = await cli('user:create', '--rut', '12345678-5');
    expect(again.code).toBe(1);
    expect(again.out.error.code).toBe('CONFLICT');
  });

  it('courier:rotate-token, courier:disable and courier:enable take effect on the running server at once', async () => {
    const created = await cli('courier:create', '--name', 'Rota Rider', '--phone', '+56912340000', '--vehicle', 'bike', '--plate', 'RT01', '--mode', 'test');
    const id = created.out.courier_id as string;
    const courierMe = (token: string) => api(`${t.url}/api/v1/couriers/me`, { key: token });
    expect((await courierMe(created.out.token)).status).toBe(200);

    const rotated = await cli('courier:rotate-token', '--courier', id);
    expect(rotated.code).toBe(0);
    expect(rotated.out).toEqual({ success: true, courier_id: id, token: expect.stringMatching(/^ct_[0-9A-Za-z]{40}$/), account_status: 'active' });
    expect(rotated.stderr).not.toContain(rotated.out.token);
    expect((await courierMe(created.out.token)).body.error.code).toBe('INVALID_COURIER_TOKEN');
    expect((await courierMe(rotated.out.token)).status).toBe(200);
    const db = openDb();
    const hash = db.prepare('SELECT token_hash FROM couriers WHERE id = ?').pluck().get(id);
    db.close();
    expect(hash).toBe(hashToken(rotated.out.token));

    const disabled = await cli('courier:disable', '--courier', id);
    expect(disabled.out).toEqual({
      success: true, courier_id: id, account_status: 'disabled', duty_status: 'off_duty', released_order_ids: [], kept_order_ids: [],
    });
    const refused = await courierMe(rotated.out.token);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('INVALID_COURIER_TOKEN');

    const enabled = await cli('courier:enable', '--courier', id);
    expect(enabled.out).toEqual({ success: true, courier_id: id, account_status: 'active', duty_status: 'off_duty' });
    expect((await courierMe(rotated.out.token)).status).toBe(200);

    const [missing, unknown, blank] = await Promise.all([
      cli('courier:disable'),
      cli('courier:rotate-token', '--courier', 'cr_does_not_exist'),
      cli('courier:enable', '--courier', ' '),
    ]);
    expect(missing.code).toBe(1);
    expect(missing.out.error).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field: 'courier' }] });
    expect(missing.out.error.message).toContain('courier:disable --courier C');
    expect(unknown.code).toBe(1);
    expect(unknown.out.error.code).toBe('COURIER_NOT_FOUND');
    expect(blank.out.error).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field: 'courier' }] });
  });

  it('cod:settle refuses more than a courier holds or than was handed over for a merchant, a malformed amount, and a write without --idempotency-key', async () => {
    const created = await cli('courier:create', '--name', 'Cash Rider', '--phone', '+56912340001', '--vehicle', 'bike', '--plate', 'CR01', '--mode', 'live');
    const [courier, merchant, neither, badAmount, noKey] = await Promise.all([
      cli('cod:settle', '--courier', created.out.courier_id, '--amount', '1', '--idempotency-key', 'cli-1'),
      cli('cod:settle', '--merchant', shop.merchant_id, '--amount', '1', '--idempotency-key', 'cli-2'),
      cli('cod:settle', '--amount', '5', '--idempotency-key', 'cli-3'),
      cli('cod:settle', '--courier', created.out.courier_id, '--amount', '12.5', '--idempotency-key', 'cli-4'),
      cli('cod:settle', '--merchant', shop.merchant_id, '--amount', '1'),
    ]);
    expect(courier.out.error).toMatchObject({ code: 'CONFLICT', details: { held: 0 } });
    expect(merchant.out.error).toMatchObject({ code: 'COD_PAYOUT_EXCEEDS_CASH', details: { payable: 0, handed_over: 0, paid_out: 0 } });
    expect(neither.out.error.code).toBe('VALIDATION_ERROR');
    expect(badAmount.out.error).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field: 'amount' }] });
    expect(noKey.out.error).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field: 'idempotency-key' }] });
    const unknownClaim = await cli('cod:confirm', '--claim', 'led_nothing');
    expect(unknownClaim.out.error.code).toBe('NOT_FOUND');
    for (const run of [courier, merchant, neither, badAmount, noKey, unknownClaim]) expect(run.code).toBe(1);
  });

  it('rejects bad input with exit 1 and the error JSON; --help prints usage', async () => {
    const [badRut, badVehicle, noMerchant, noCommand, badOption, help] = await Promise.all([
      cli('user:create', '--rut', ruts.invalid[0]!.rut),
      cli('courier:create', '--name', 'Bo', '--phone', '+56912345678', '--vehicle', 'boat', '--plate', 'X1'),
      cli('key:rotate', '--merchant', 'm_does_not_exist', '--mode', 'live'),
      cli('merchant:delete', '--merchant', shop.merchant_id),
      cli('merchant:create', '--name', 'X', '--colour', 'red'),
      runCli(dataDir, ['--help']),
    ]);
    for (const run of [badRut, badVehicle, noMerchant, noCommand, badOption]) {
      expect(run.code).toBe(1);
      expect(run.out).toEqual({ success: false, error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }) });
    }
    expect(badRut.out.error).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field: 'rut' }] });
    expect(badVehicle.out.error).toMatchObject({ code: 'VALIDATION_ERROR', fields: [{ field: 'vehicle' }] });
    expect(noMerchant.out.error.code).toBe('MERCHANT_NOT_FOUND');
    expect(noCommand.out.error.code).toBe('VALIDATION_ERROR');
    expect(noCommand.out.error.message).toMatch(/Unknown command "merchant:delete"[\s\S]*Usage:[\s\S]*merchant:create --name/);
    expect(badOption.out.error.code).toBe('VALIDATION_ERROR');
    expect(badOption.out.error.message).toContain("'--colour'");

    expect(help.code).toBe(0);
    expect(help.out).toMatchObject({ success: true, usage: expect.stringContaining('<command>') });
    expect(Object.keys(help.out.commands)).toHaveLength(31);
    expect(Object.keys(help.out.commands)).toContain('user:reset-password');
    expect(Object.keys(help.out.commands)).toEqual(expect.arrayContaining(['cod:settle', 'cod:confirm', 'cod:reject']));
    expect(Object.keys(help.out.commands)).toEqual(expect.arrayContaining(['backup', 'db:vacuum']));
  });
});
