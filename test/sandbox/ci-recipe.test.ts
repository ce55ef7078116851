/**
 * The CI recipe for integrators (issue #31 item 3) is docs/examples/sandbox-ci.mjs, shown
 * verbatim in docs/api.md ("Deterministic sandbox runs"): run here as an integrator would (a child `node` process with a test
 * key) against a running service, it must drive a sandbox run, verify every v1a signature with
 * node:crypto and find the exact sequence, and exit 0.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { startWebhooksApp } from '../webhooks/support.js';

const SCRIPT = new URL('../../docs/examples/sandbox-ci.mjs', import.meta.url);
let t: TestApp;
beforeAll(async () => {
  t = await startWebhooksApp();
});
afterAll(async () => {
  await t?.stop();
});

describe('the CI recipe', () => {
  it('is in docs/api.md verbatim', () => {
    const guide = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    expect(guide).toContain(readFileSync(SCRIPT, 'utf8'));
  });

  it('drives a sandbox run against its own receiver, verifies every delivery and asserts the sequence', async () => {
    const m = await t.createMerchant({ name: 'CI recipe' });
    const { stdout } = await promisify(execFile)(process.execPath, [SCRIPT.pathname], {
      env: { PATH: process.env.PATH, EXD_URL: t.url, EXD_TEST_KEY: m.testKey, CI_JOB_ID: 'job-1' }, timeout: 60_000,
    });
    expect(stdout).toMatch(/^ok: 6 webhooks, 1:new@2026-01-15T12:00:00.000Z → 2:assigned@.* → 6:completed@2026-01-15T12:\d\d:\d\d.000Z\n$/);
    // Its endpoint is gone afterwards.
    expect((await fetch(`${t.url}/api/v1/webhooks`, { headers: { authorization: `Bearer ${m.testKey}` } }).then((r) => r.json())).endpoints).toEqual([]);
  }, 90_000);
});
