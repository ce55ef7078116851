import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDataDir, startTestApp, type TestApp } from '../helpers/app.js';
import { PROJECT_ROOT } from '../helpers/process.js';
import { gqlOps, OPERATOR_ME, opsCookieFrom, PASSWORD, SET_PASSWORD, signIn, tokenOf } from './support.js';

/** The real admin CLI against dataDir: its one stdout line, parsed. */
function cli(dataDir: string, args: string[]): Promise<{ code: number | null; out: Record<string, unknown> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/admin-cli.ts', ...args, '--json'], {
    cwd: PROJECT_ROOT,
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'silent', PUBLIC_BASE_URL: 'https://ops.example.cl' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, out: JSON.parse(stdout.trim()) as Record<string, unknown> }));
  });
}

describe('admin CLI operator:invite and the audit log of CLI commands', { timeout: 120_000 }, () => {
  const dataDir = makeDataDir();
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ dataDir });
  });
  afterAll(async () => {
    await t.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('an operator invited from the CLI sets a password and signs in; the CLI commands are in the audit log as cli', async () => {
    const run = await cli(dataDir, ['operator:invite', '--email', 'Jefa@Ops.Example.CL', '--role', 'admin']);
    expect(run.code).toBe(0);
    expect(run.out).toEqual({
      success: true,
      operator_id: expect.stringMatching(/^op_/),
      email: 'jefa@ops.example.cl',
      role: 'admin',
      status: 'invited',
      set_password_url: expect.stringMatching(/^https:\/\/ops\.example\.cl\/ops\/set-password#token=pt_[A-Za-z0-9_-]{43}$/),
      expires_at: expect.any(String),
    });
    const set = await gqlOps(t, null, SET_PASSWORD, { variables: { input: { token: tokenOf(run.out.set_password_url as string), password: PASSWORD } } });
    expect(set.body.data.operatorSetPassword.data.email).toBe('jefa@ops.example.cl');
    const cookie = opsCookieFrom((await signIn(t, 'jefa@ops.example.cl')).headers)!;
    expect((await gqlOps(t, cookie, OPERATOR_ME)).body.data.operatorMe.role).toBe('admin');

    const shop = await t.createMerchant({ name: 'CLI Audit Shop' });
    expect((await cli(dataDir, ['merchant:suspend', '--merchant', shop.merchantId])).code).toBe(0);
    const refused = await cli(dataDir, ['operator:invite', '--email', 'not-an-email', '--role', 'boss']);
    expect(refused.out.success).toBe(false);

    const audit = await gqlOps(t, cookie, `{ adminAuditLog(actor: "cli") { entries { action targetType targetId actor { kind operatorId } before after } } }`);
    const entries = audit.body.data.adminAuditLog.entries as Array<{ action: string; targetType: string; targetId: string; actor: { kind: string }; before: string | null; after: string | null }>;
    expect(entries.map((e) => e.action)).toEqual(['merchant.set_status', 'operator.invite']);
    expect(entries[0]).toMatchObject({ targetType: 'merchant', targetId: shop.merchantId, actor: { kind: 'cli', operatorId: null } });
    expect(JSON.parse(entries[0]!.after!).status).toBe('suspended');
    expect(entries[1]).toMatchObject({ targetType: 'operator', targetId: run.out.operator_id });
    // The link is never in the log.
    expect(JSON.stringify(entries)).not.toContain('pt_');
  });
});
