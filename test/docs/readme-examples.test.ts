/** The README's quick-start requests and docs/graphql.md's examples, run as written (host and key substituted) against a real server. */
import { execFile, spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { until } from '../realtime/support.js';
import { checkRestResponse } from '../helpers/wire-validator.js';

const ROOT = new URL('../../', import.meta.url);
// A sandbox fleet that does not drive on its own (a tick far away): the test steps the order.
const ENV = { SANDBOX_SIMULATOR: 'true', SANDBOX_TICK_MS: '60000', SANDBOX_COURIERS_PER_VEHICLE: '1', PUBLIC_RATE_LIMIT_PER_MIN: '100000' };

function graphqlSection(): { sh: string; js: string } {
  const guide = readFileSync(new URL('docs/graphql.md', ROOT), 'utf8');
  const section = /\n## GraphiQL and the examples\n([\s\S]*?)(?:\n## |$)/.exec(guide)?.[1] ?? '';
  const blocks = [...section.matchAll(/```(sh|js)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], code: m[2]! }));
  expect(blocks.map((b) => b.lang)).toEqual(['sh', 'js']);
  return { sh: blocks[0]!.code, js: blocks[1]!.code };
}

/** The quick start's `KEY=…` block of curl requests. */
function quickStartRequests(): string {
  const readme = readFileSync(new URL('README.md', ROOT), 'utf8');
  const section = /\n## Quick start\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
  const block = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).find((code) => code.includes('KEY=ak_test_'));
  expect(block).toBeDefined();
  return block!;
}

describe('the quick start (README) and the GraphQL examples (docs/graphql.md) work as written', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let host: string;
  const { sh, js } = graphqlSection();
  let tracking = '';
  const script = new URL(`.readme-track-${process.pid}.mjs`, ROOT);

  beforeAll(async () => {
    t = await startTestApp({ env: ENV });
    m = await t.createMerchant({ name: 'Readme Shop' });
    host = new URL(t.url).host;
  });
  afterAll(async () => {
    rmSync(script, { force: true });
    await t?.stop();
  });

  it('the quick start: a REST quote and a test order, each as the OpenAPI document says', async () => {
    const block = quickStartRequests();
    // Each answer on its own lines with its status after it; the README's own lines are run unchanged.
    const code = `set -euo pipefail\ncurl() { command curl -w '\\n%{http_code}\\n' "$@"; }\n${block.replace(/^KEY=.*$/m, '').replaceAll('localhost:3000', host)}`;
    const { stdout } = await promisify(execFile)('bash', ['-c', code], { cwd: ROOT, env: { ...process.env, KEY: m.testKey } });
    const [quote, quoteStatus, order, orderStatus] = stdout.trim().split('\n');
    expect([quoteStatus, orderStatus]).toEqual(['200', '201']);
    for (const [path, body, status] of [['/api/v1/shipping/quote', quote!, 200], ['/api/v1/orders', order!, 201]] as const) {
      expect(checkRestResponse({ method: 'POST', url: `${t.url}${path}`, status, contentType: 'application/json; charset=utf-8', body }), path).toEqual([]);
    }
    expect(JSON.parse(order!).tracking_url).toMatch(/\/track\/EXD-/);
  });

  it('the curl block: a quote, a mutation and the order by id, with no error', async () => {
    expect(sh).toContain('export KEY=ak_test_…');
    const code = `set -euo pipefail\n${sh.replace(/^export KEY=.*$/m, '').replaceAll('localhost:3000', host)}\necho "TRACKING=$TRACKING"`;
    const { stdout } = await promisify(execFile)('bash', ['-c', code], { cwd: ROOT, env: { ...process.env, KEY: m.testKey } });
    const lines = stdout.trim().split('\n');
    tracking = lines.at(-1)!.replace('TRACKING=', '');
    expect(tracking).toMatch(/^EXD-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    const answers = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
    expect(answers).toHaveLength(2);
    for (const answer of answers) expect(answer.errors).toBeUndefined();
    expect(answers[0].data.quote.data.price).toBeGreaterThan(0);
    expect(answers[1].data.order.data).toMatchObject({ trackingNumber: tracking, status: 'assigned', driver: { vehicleType: expect.any(String) } });
  });

  it('the graphql-ws script prints each status change and ends at completed', async () => {
    expect(tracking).not.toBe('');
    writeFileSync(script, js.replaceAll('localhost:3000', host));
    const child = spawn(process.execPath, [script.pathname, tracking], { cwd: ROOT, env: { ...process.env, KEY: m.testKey } });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      // Subscribed once the order has a watcher on this node; then the sandbox steps it to the end.
      await until(() => t.app.container.fanOut.sizes().orders > 0, 'the script subscribed', 15_000);
      const order = await api(`${t.url}/api/v1/orders/${tracking}`, { key: m.testKey });
      for (let step = 0; step < 4; step++) {
        expect((await api(`${t.url}/api/v1/sandbox/orders/${order.body.booking_id}/advance`, { key: m.testKey, method: 'POST' })).status).toBe(200);
      }
      expect(await exited, err).toBe(0);
    } finally {
      child.kill();
    }
    const statuses = out.trim().split('\n').map((line) => line.split(' ')[1]);
    expect(statuses).toEqual(['arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed']);
  });
});
