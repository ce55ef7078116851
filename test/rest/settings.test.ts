import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';
import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildContainer } from '../../src/container.js';
import { ADMIN_TOKEN, api, makeDataDir, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { spawnServer, type ServerProcess } from '../helpers/process.js';
import { checkRestResponse } from '../helpers/wire-validator.js';

type Response = Awaited<ReturnType<typeof api>>;
/** A parsed JSON body (the helper types it loosely on purpose). */
type Body = Response['body'];

function fieldNames(body: Body): string[] {
  return (body.error.fields as { field: string }[]).map((f) => f.field);
}

describe('PATCH and POST /merchants/settings', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  beforeAll(async () => {
    t = await startTestApp();
    m = await t.createMerchant({ name: 'Settings Merchant', address: 'Av. Providencia 1234, Providencia' });
  });
  afterAll(() => t.stop());

  const settings = (method: 'PATCH' | 'POST', body: unknown, key = m.testKey) =>
    api(`${t.url}/api/v1/merchants/settings`, { method, key, body });
  const profile = async (key = m.testKey) => (await api(`${t.url}/api/v1/merchants/me`, { key })).body.merchant;

  function expectValidationError(res: Response, fields: string[]): void {
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', message: expect.any(String) } });
    expect(fieldNames(res.body)).toEqual(expect.arrayContaining(fields));
  }

  it('a merchant with no address and no platform: both are strings on /merchants/me (the spec types them so), empty', async () => {
    const bare = await t.app.container.services.admin.createMerchant({ input: { name: 'No Address Yet' } });
    const p = await profile(bare.testKey);
    expect([p.address, p.integration_platform, p.settings.address, p.settings.integration_platform]).toEqual(['', '', '', '']);
    await settings('POST', { integration_platform: 'erp' }, bare.testKey);
    expect((await profile(bare.testKey)).integration_platform).toBe('erp');
  });

  describe('PATCH', () => {
    it('sets prep_time_mins and answers {success, message, prep_time_mins}', async () => {
      const res = await settings('PATCH', { prep_time_mins: 15 });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, message: expect.any(String), prep_time_mins: 15 });
      expect((await profile()).prep_time_mins).toBe(15);
    });

    it('requires prep_time_mins', async () => {
      expectValidationError(await settings('PATCH', {}), ['prep_time_mins']);
      expectValidationError(await settings('PATCH', { address: 'Los Leones 100, Providencia' }), ['prep_time_mins']);
      expect((await profile()).address).toBe('Av. Providencia 1234, Providencia');
    });

    it.each([['10'], [10.5], [-1], [241], [null], [true], [Number.MAX_SAFE_INTEGER + 2]])('refuses prep_time_mins = %j', async (value) => {
      const before = (await profile()).prep_time_mins;
      expectValidationError(await settings('PATCH', { prep_time_mins: value }), ['prep_time_mins']);
      expect((await profile()).prep_time_mins).toBe(before);
    });

    it('accepts the bounds 0 and 240', async () => {
      for (const value of [240, 0]) {
        const res = await settings('PATCH', { prep_time_mins: value });
        expect(res.status).toBe(200);
        expect(res.body.prep_time_mins).toBe(value);
        expect((await profile()).prep_time_mins).toBe(value);
      }
    });

    it('refuses unknown fields, lists them, and stores nothing', async () => {
      await settings('PATCH', { prep_time_mins: 5 });
      const res = await settings('PATCH', { prep_time_mins: 33, color: 'red', prepTimeMins: 1 });
      expectValidationError(res, ['color', 'prepTimeMins']);
      expect((await profile()).prep_time_mins).toBe(5);
    });
  });

  describe('POST', () => {
    it('accepts any subset of the known settings and keeps the rest', async () => {
      await settings('PATCH', { prep_time_mins: 7 });
      const steps: [Record<string, unknown>, (p: Body) => void][] = [
        [{ address: 'Av. Apoquindo 4000, Las Condes' }, (p) => expect(p.address).toBe('Av. Apoquindo 4000, Las Condes')],
        [{ storefront_domain: 'Demo-Shop.myshopify.com' }, (p) => expect(p.settings.storefront_domain).toBe('demo-shop.myshopify.com')],
        [{ integration_platform: 'storefront' }, (p) => expect(p.integration_platform).toBe('storefront')],
        [{ webhook_payload_shape: 'flat' }, (p) => expect(p.settings.webhook_payload_shape).toBe('flat')],
        [{ webhook_courier_location: true }, (p) => expect(p.settings.webhook_courier_location).toBe(true)],
        [{ integration_platform: null, storefront_domain: null }, (p) => expect(p.settings).toMatchObject({ integration_platform: '', storefront_domain: null })],
      ];
      for (const [body, check] of steps) {
        const res = await settings('POST', body);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body.success).toBe(true);
        const p = await profile();
        check(p);
        expect(p.prep_time_mins).toBe(7);
      }
      const p = await profile();
      expect(p.address).toBe('Av. Apoquindo 4000, Las Condes');
      expect(p.settings).toMatchObject({ webhook_payload_shape: 'flat', webhook_courier_location: true });
    });

    it('accepts prep_time_mins too, with the same bounds', async () => {
      expect((await settings('POST', { prep_time_mins: 9 })).body.prep_time_mins).toBe(9);
      expectValidationError(await settings('POST', { prep_time_mins: 241 }), ['prep_time_mins']);
    });

    it('refuses {} with 400', async () => {
      const res = await settings('POST', {});
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    });

    it('refuses bad values per field', async () => {
      expectValidationError(await settings('POST', { storefront_domain: 'not a domain' }), ['storefront_domain']);
      expectValidationError(await settings('POST', { integration_platform: 'magento' }), ['integration_platform']);
      expectValidationError(await settings('POST', { webhook_payload_shape: 'xml' }), ['webhook_payload_shape']);
      expectValidationError(await settings('POST', { webhook_courier_location: 'yes' }), ['webhook_courier_location']);
      expectValidationError(await settings('POST', { address: 'x' }), ['address']);
    });

    it('refuses unknown fields and stores nothing of the valid ones beside them', async () => {
      const before = await profile();
      expectValidationError(await settings('POST', { address: 'Nueva 123, Ñuñoa', logo_url: 'https://x' }), ['logo_url']);
      expect(await profile()).toEqual(before);
    });
  });

  describe('bodies that are not objects are 400, never 500', () => {
    for (const method of ['PATCH', 'POST'] as const) {
      it(`${method}: null, array, string, number and no body`, async () => {
        for (const rawBody of ['null', '[]', '[{"prep_time_mins":5}]', '"text"', '42']) {
          const res = await api(`${t.url}/api/v1/merchants/settings`, {
            method,
            key: m.testKey,
            headers: { 'content-type': 'application/json' },
            rawBody,
          });
          expect(res.status, `${method} ${rawBody}`).toBe(400);
          expect(res.body.success).toBe(false);
          expect(['VALIDATION_ERROR', 'MALFORMED_JSON']).toContain(res.body.error.code);
        }
        const empty = await api(`${t.url}/api/v1/merchants/settings`, { method, key: m.testKey });
        expect(empty.status).toBe(400);
        expect(empty.body.error.code).toBe('VALIDATION_ERROR');
      });
    }
  });
});

describe('settings persistence across process death (spawned server, SQLite on disk)', () => {
  const dataDir = makeDataDir();
  let server: ServerProcess | null = null;
  let creds: MerchantCredentials;
  const env = { DATA_DIR: dataDir, SHUTDOWN_GRACE_MS: '5000' };

  beforeAll(async () => {
    // The merchant is created by a separate in-process container on the same DATA_DIR (the same
    // SQLite file and master key the spawned server will open), then that container is closed.
    const container = await buildContainer(loadConfig({ DATA_DIR: dataDir, ADMIN_TOKEN, LOG_LEVEL: 'silent', SEED_DEMO: 'false' }));
    creds = await container.services.admin.createMerchant({ input: { name: 'Durable Merchant' } });
    await container.close();
  });
  afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) await server.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a PATCH survives SIGKILL and restart', async () => {
    server = await spawnServer(env);
    const patch = await api(`${server.url}/api/v1/merchants/settings`, { method: 'PATCH', key: creds.liveKey, body: { prep_time_mins: 37 } });
    expect(patch.status).toBe(200);
    await server.kill();
    expect(server.child.signalCode).toBe('SIGKILL');

    server = await spawnServer(env);
    const me = await api(`${server.url}/api/v1/merchants/me`, { key: creds.testKey });
    expect(me.status).toBe(200);
    expect(me.body.merchant).toMatchObject({ id: creds.merchantId, name: 'Durable Merchant', prep_time_mins: 37 });
  });

  it('SIGTERM finishes the in-flight request, refuses new connections, exits 0 and closes the port', async () => {
    server ??= await spawnServer(env);
    const { port, url } = server;

    // Expect: 100-continue makes the server acknowledge the headers: from then on the request is
    // in flight on the server, with its body still to come.
    const body = JSON.stringify({ prep_time_mins: 52 });
    const req = request({
      host: '127.0.0.1',
      port,
      method: 'PATCH',
      path: '/api/v1/merchants/settings',
      agent: false,
      headers: {
        authorization: `Bearer ${creds.liveKey}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        expect: '100-continue',
      },
    });
    const response = once(req, 'response') as Promise<[IncomingMessage]>;
    req.flushHeaders();
    await once(req, 'continue');

    const outputBefore = server.output().length;
    const exited = server.terminate();
    await waitFor(() => server!.output().slice(outputBefore).includes('draining and shutting down'));
    // A new connection is refused (a keep-alive one this process already holds would still be
    // answered, with Connection: close: test/chaos/sigterm-drain.test.ts).
    await expect(newConnectionTo(port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    req.end(body);
    const [res] = await response;
    let text = '';
    for await (const chunk of res) text += String(chunk);
    checkRestResponse({ method: 'PATCH', url: `${url}/api/v1/merchants/settings`, status: res.statusCode ?? 0, contentType: res.headers['content-type'] ?? null, body: text });
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ success: true, prep_time_mins: 52 });

    expect(await exited).toBe(0);
    await expect(fetch(`${url}/api/v1/health`)).rejects.toThrow();

    // And the drained write is on disk.
    server = await spawnServer(env);
    const me = await api(`${server.url}/api/v1/merchants/me`, { key: creds.liveKey });
    expect(me.body.merchant.prep_time_mins).toBe(52);
    expect(await server.terminate()).toBe(0);
  });
});

/** Opens a new TCP connection (never a pooled keep-alive one) and closes it again. */
function newConnectionTo(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}

/** Polls a condition driven by the child's output (not a timing assertion: it only waits). */
async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
