import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDataDir, startTestApp, type TestApp } from '../helpers/app.js';
import { PROJECT_ROOT } from '../helpers/process.js';
import { cookieFrom, gqlAs, LOG_IN, logIn, ME, PASSWORD, SET_PASSWORD, signedIn, tokenOf } from './support.js';

/** The real admin CLI against dataDir: its one stdout line, parsed. */
function cli(dataDir: string, args: string[]): Promise<{ code: number | null; out: Record<string, unknown>; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/admin-cli.ts', ...args, '--json'], {
    cwd: PROJECT_ROOT,
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'info', PUBLIC_BASE_URL: 'https://console.example.cl' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, out: JSON.parse(stdout.trim()) as Record<string, unknown>, stderr }));
  });
}

describe('admin CLI user:invite', { timeout: 60_000 }, () => {
  const dataDir = makeDataDir();
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ dataDir });
  });
  afterAll(async () => {
    await t.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints a one-time set-password link that the running server accepts; the owner then signs in', async () => {
    const shop = await t.createMerchant({ name: 'CLI Console Shop' });
    const run = await cli(dataDir, ['user:invite', '--merchant', shop.merchantId, '--email', 'Duena@Tienda.CL', '--role', 'owner']);
    expect(run.code).toBe(0);
    expect(run.out).toEqual({
      success: true,
      member_id: expect.stringMatching(/^mb_/),
      merchant_id: shop.merchantId,
      email: 'duena@tienda.cl',
      role: 'owner',
      status: 'invited',
      set_password_url: expect.stringMatching(/^https:\/\/console\.example\.cl\/console\/set-password#token=pt_[A-Za-z0-9_-]{43}$/),
      expires_at: expect.any(String),
    });
    const hours = (Date.parse(run.out.expires_at as string) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(71.9);
    expect(hours).toBeLessThanOrEqual(72);
    const token = tokenOf(run.out.set_password_url as string);
    // The link is printed, never logged.
    expect(run.stderr).not.toContain(token);

    expect((await gqlAs(t, null, SET_PASSWORD, { variables: { input: { token, password: PASSWORD } } })).body.data.setPassword.__typename).toBe('MutationSetPasswordSuccess');
    const res = await gqlAs(t, null, LOG_IN, { variables: { input: { merchantId: shop.merchantId, email: 'duena@tienda.cl', password: PASSWORD } } });
    expect((await gqlAs(t, cookieFrom(res.headers), ME)).body.data.me).toMatchObject({ role: 'owner', member: { email: 'duena@tienda.cl' } });
  });

  it('refuses an unknown merchant, a bad role or email, naming the options', async () => {
    const unknown = await cli(dataDir, ['user:invite', '--merchant', 'm_nope', '--email', 'a@b.cl', '--role', 'viewer']);
    expect(unknown.code).toBe(1);
    expect(unknown.out).toMatchObject({ success: false, error: { code: 'MERCHANT_NOT_FOUND' } });
    const shop = await t.createMerchant();
    const bad = await cli(dataDir, ['user:invite', '--merchant', shop.merchantId, '--email', 'not-an-email', '--role', 'admin']);
    expect(bad.out).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    const fields = ((bad.out.error as { fields: Array<{ field: string }> }).fields).map((f) => f.field).sort();
    expect(fields).toEqual(['email', 'role']);
  });

  it('user:reset-password prints a new link for an active member: the old password works until it is used, then not', async () => {
    const shop = await t.createMerchant({ name: 'CLI Reset Shop' });
    const cookie = await signedIn(t, shop.merchantId, 'olvido@tienda.cl', 'owner');
    const run = await cli(dataDir, ['user:reset-password', '--merchant', shop.merchantId, '--email', 'Olvido@Tienda.cl']);
    expect(run.code).toBe(0);
    expect(run.out).toMatchObject({ success: true, email: 'olvido@tienda.cl', set_password_url: expect.stringContaining('/console/set-password#token=pt_') });
    const token = tokenOf(run.out.set_password_url as string);
    expect(run.stderr).not.toContain(token);
    expect((await gqlAs(t, cookie, ME)).body.data.me.member.email).toBe('olvido@tienda.cl');

    const fresh = 'a brand new passphrase here';
    expect((await gqlAs(t, null, SET_PASSWORD, { variables: { input: { token, password: fresh } } })).body.data.setPassword.__typename).toBe('MutationSetPasswordSuccess');
    expect((await gqlAs(t, cookie, ME)).body.errors[0].extensions.code).toBe('INVALID_SESSION');
    expect((await logIn(t, shop.merchantId, 'olvido@tienda.cl')).body.data.logIn.code).toBe('INVALID_CREDENTIALS');
    expect((await logIn(t, shop.merchantId, 'olvido@tienda.cl', fresh)).body.data.logIn.__typename).toBe('MutationLogInSuccess');

    const unknown = await cli(dataDir, ['user:reset-password', '--merchant', shop.merchantId, '--email', 'nadie@tienda.cl']);
    expect(unknown.code).toBe(1);
    expect(unknown.out).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
  });
});
