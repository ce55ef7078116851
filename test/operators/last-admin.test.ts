import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDataDir, startTestApp, type TestApp } from '../helpers/app.js';
import { PROJECT_ROOT } from '../helpers/process.js';
import { codeOf, gqlOps, signedInOperator } from './support.js';

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

const SET_ROLE = `mutation ($id: ID!, $role: OperatorRole!) { adminSetOperatorRole(operatorId: $id, role: $role) {
  __typename ... on MutationAdminSetOperatorRoleSuccess { data { role status } } ... on AppError { code message } } }`;
const SET_STATUS = `mutation ($id: ID!, $status: OperatorSettableStatus!) { adminSetOperatorStatus(operatorId: $id, status: $status) {
  __typename ... on MutationAdminSetOperatorStatusSuccess { data { role status } } ... on AppError { code message } } }`;

describe('the last active admin operator is never disabled or demoted (issue #29)', { timeout: 120_000 }, () => {
  const dataDir = makeDataDir();
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ dataDir, env: { PUBLIC_RATE_LIMIT_PER_MIN: '100000', RATE_LIMIT_PER_MIN: '100000' } });
  });
  afterAll(async () => {
    await t.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const activeAdmins = async () => (await t.app.container.services.operators.listOperators()).filter((o) => o.role === 'admin' && o.status === 'active');

  it('GraphQL and the CLI refuse it with CONFLICT; with a second admin the change goes through', async () => {
    const jefa = await signedInOperator(t, 'jefa@ops.example.cl', 'admin');
    const demote = await gqlOps(t, jefa.cookie, SET_ROLE, { variables: { id: jefa.id, role: 'dispatcher' } });
    expect(demote.body.data.adminSetOperatorRole).toMatchObject({ __typename: 'AppError', code: 'CONFLICT' });
    const disable = await gqlOps(t, jefa.cookie, SET_STATUS, { variables: { id: jefa.id, status: 'disabled' } });
    expect(disable.body.data.adminSetOperatorStatus).toMatchObject({ __typename: 'AppError', code: 'CONFLICT' });
    for (const args of [['operator:disable', '--operator', jefa.id], ['operator:set-role', '--operator', jefa.id, '--role', 'support']]) {
      const run = await cli(dataDir, args);
      expect(run.out.success).toBe(false);
      expect(run.out.error).toMatchObject({ code: 'CONFLICT' });
    }
    expect((await activeAdmins()).map((o) => o.id)).toEqual([jefa.id]);
    // Nothing refused was audited; the refused session still works.
    const audit = await gqlOps(t, jefa.cookie, `{ adminAuditLog(action: "operator.set_role") { entries { id } } }`);
    expect(audit.body.data.adminAuditLog.entries).toEqual([]);

    const second = await signedInOperator(t, 'segunda@ops.example.cl', 'admin');
    const ok = await gqlOps(t, second.cookie, SET_ROLE, { variables: { id: jefa.id, role: 'dispatcher' } });
    expect(ok.body.data.adminSetOperatorRole.data).toEqual({ role: 'dispatcher', status: 'active' });
    expect((await cli(dataDir, ['operator:disable', '--operator', second.id])).out.error).toMatchObject({ code: 'CONFLICT' });
  });

  it('two admins demoting each other at once: one succeeds, one active admin always stays', async () => {
    for (let trial = 0; trial < 3; trial++) {
      const before = (await activeAdmins()).map((o) => o.id);
      // Leave exactly two active admins: a and b.
      const a = await signedInOperator(t, `a${trial}@ops.example.cl`, 'admin');
      const b = await signedInOperator(t, `b${trial}@ops.example.cl`, 'admin');
      for (const id of before) await t.app.container.services.auditedAdmin.as({ kind: 'cli' }).setOperatorRole({ input: { operatorId: id, role: 'support' } });
      const [ra, rb] = await Promise.all([
        gqlOps(t, a.cookie, SET_ROLE, { variables: { id: b.id, role: 'support' } }),
        gqlOps(t, b.cookie, trial % 2 === 0 ? SET_ROLE : SET_STATUS, { variables: trial % 2 === 0 ? { id: a.id, role: 'dispatcher' } : { id: a.id, status: 'disabled' } }),
      ]);
      const outcomes = [codeOf(ra.body, 'adminSetOperatorRole'), codeOf(rb.body, trial % 2 === 0 ? 'adminSetOperatorRole' : 'adminSetOperatorStatus')];
      // The loser is refused by the store (CONFLICT), or its session already ended with the winner's change.
      const succeeded = outcomes.filter((code) => code === null);
      expect(succeeded, JSON.stringify(outcomes)).toHaveLength(1);
      expect(outcomes.filter((code) => code !== null).every((code) => code === 'CONFLICT' || code === 'INVALID_SESSION')).toBe(true);
      expect(await activeAdmins()).toHaveLength(1);
    }
  });
});
