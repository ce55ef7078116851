/**
 * SSRF: live endpoints must be https and must not reach private, loopback or link-local addresses,
 * checked at registration and again at send time; the sandbox may reach this machine's loopback in
 * development (unset flag), anything private with WEBHOOK_SANDBOX_ALLOW_PRIVATE=true, nothing private
 * with it false or in production.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { makeDataDir, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { expectError, expectOk, formA, merchantApi, startOrdersApp } from '../orders/support.js';
import { FAST_WEBHOOKS, allDeliveries, startReceiver, startWebhooksApp, waitFor, webhooksApi, type Receiver } from './support.js';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver?.close());

/** Refused for live endpoints whatever the configuration. */
const LIVE_REFUSED = [
  'http://hooks.example.com/webhooks', // not https
  'https://127.0.0.1/webhooks',
  'https://10.0.0.1/webhooks',
  'https://[::1]/webhooks',
  'https://localhost/webhooks',
  'https://169.254.169.254/latest/meta-data/',
  // The same places in other spellings.
  'https://LOCALHOST:8443/webhooks',
  'https://localhost./webhooks',
  'https://api.localhost/webhooks',
  'https://2130706433/webhooks', // 127.0.0.1 as one decimal number
  'https://0x7f.0.0.1/webhooks',
  'https://[::ffff:127.0.0.1]/webhooks',
  'https://[::ffff:169.254.169.254]/webhooks',
  'https://0.0.0.0/webhooks',
  'https://172.16.4.2/webhooks',
  'https://192.168.1.20/webhooks',
  'https://100.64.0.1/webhooks',
  'https://[fe80::1]/webhooks',
  'https://[fd00::1]/webhooks',
  'https://user:secret@hooks.example.com/webhooks',
];

describe('registration (live mode), even with WEBHOOK_SANDBOX_ALLOW_PRIVATE=true', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  beforeAll(async () => {
    t = await startWebhooksApp({ WEBHOOK_SANDBOX_ALLOW_PRIVATE: 'true' });
    m = await t.createMerchant();
  });
  afterAll(() => t?.stop());

  it.each(LIVE_REFUSED)('refuses %s with 400 on the url field', async (url) => {
    const res = expectError(await webhooksApi(t.url, m.liveKey).create({ url }), 400, 'VALIDATION_ERROR');
    expect(res.body.error.fields).toEqual([{ field: 'url', message: expect.any(String) }]);
  });

  it('accepts public https URLs, and refuses changing one to a private address', async () => {
    const hooks = webhooksApi(t.url, m.liveKey);
    const ok = expectOk(await hooks.create({ url: 'https://93.184.216.34/webhooks' }), 201).body.endpoint;
    expect(ok).toMatchObject({ url: 'https://93.184.216.34/webhooks', is_test: false, enabled: true });
    const res = expectError(await hooks.update(ok.id, { url: 'https://10.1.2.3/webhooks' }), 400, 'VALIDATION_ERROR');
    expect(res.body.error.message).toMatch(/private, loopback or link-local/);
    expect(expectOk(await hooks.get(ok.id)).body.endpoint.url).toBe('https://93.184.216.34/webhooks');
    expect(expectOk(await hooks.list()).body.endpoints).toHaveLength(1);
  });
});

describe('registration (test mode)', () => {
  it('refuses loopback and private receivers unless WEBHOOK_SANDBOX_ALLOW_PRIVATE=true; http is fine in the sandbox', async () => {
    const strict = await startWebhooksApp({ WEBHOOK_SANDBOX_ALLOW_PRIVATE: 'false' });
    try {
      const m = await strict.createMerchant();
      const hooks = webhooksApi(strict.url, m.testKey);
      for (const url of [`${receiver.url}/sandbox`, `http://localhost:${receiver.port}/sandbox`, 'https://10.0.0.1/x', 'http://[::1]:8080/x']) {
        expectError(await hooks.create({ url }), 400, 'VALIDATION_ERROR');
      }
      expect(expectOk(await hooks.create({ url: 'http://93.184.216.34/webhooks' }), 201).body.endpoint.is_test).toBe(true);
    } finally {
      await strict.stop();
    }

    const relaxed = await startWebhooksApp({ WEBHOOK_SANDBOX_ALLOW_PRIVATE: 'true' });
    try {
      const m = await relaxed.createMerchant();
      const hooks = webhooksApi(relaxed.url, m.testKey);
      expectOk(await hooks.create({ url: `${receiver.url}/sandbox` }), 201);
      await merchantApi(relaxed, m.testKey).create(formA());
      await waitFor(() => receiver.receipts.some((r) => r.path === '/sandbox' && r.status === 200), { what: 'the sandbox delivery' });
      // Still never for live keys.
      expectError(await webhooksApi(relaxed.url, m.liveKey).create({ url: `${receiver.url}/sandbox` }), 400, 'VALIDATION_ERROR');
    } finally {
      await relaxed.stop();
    }
  });
});

describe('the first hour: WEBHOOK_SANDBOX_ALLOW_PRIVATE unset', () => {
  it('in development a sandbox endpoint may be a receiver on this machine (and is delivered to), nothing else private; live keys never', async () => {
    const { WEBHOOK_SANDBOX_ALLOW_PRIVATE: _unset, ...fast } = FAST_WEBHOOKS;
    const t = await startOrdersApp({ env: fast });
    try {
      const m = await t.createMerchant();
      const hooks = webhooksApi(t.url, m.testKey);
      expectOk(await hooks.create({ url: `${receiver.url}/first-hour` }), 201);
      expectOk(await hooks.create({ url: `http://localhost:${receiver.port}/first-hour-by-name` }), 201);
      for (const url of ['http://10.0.0.1/x', 'http://192.168.1.20/x', 'http://169.254.169.254/latest/meta-data/', 'http://[fd00::1]/x']) {
        const res = expectError(await hooks.create({ url }), 400, 'VALIDATION_ERROR');
        expect(res.body.error.fields[0].message).toMatch(/loopback, nothing else private/);
      }
      expectError(await webhooksApi(t.url, m.liveKey).create({ url: `https://127.0.0.1:${receiver.port}/live` }), 400, 'VALIDATION_ERROR');
      expectOk(await merchantApi(t, m.testKey).create(formA()), 201);
      await waitFor(() => ['/first-hour', '/first-hour-by-name'].every((path) => receiver.receipts.some((r) => r.path === path && r.status === 200)), { what: 'both loopback deliveries' });
    } finally {
      await t.stop();
    }
  });

  it('in production the sandbox reaches public addresses only', () => {
    const config = loadConfig({ NODE_ENV: 'production', DATA_DIR: '/tmp/unused', ADMIN_TOKEN: 'x'.repeat(32) });
    expect(config.webhooks.sandboxReach).toBe('public');
    expect(loadConfig({ DATA_DIR: '/tmp/unused' }).webhooks.sandboxReach).toBe('loopback');
    expect(loadConfig({ DATA_DIR: '/tmp/unused', WEBHOOK_SANDBOX_ALLOW_PRIVATE: 'true' }).webhooks.sandboxReach).toBe('private');
    expect(loadConfig({ DATA_DIR: '/tmp/unused', WEBHOOK_SANDBOX_ALLOW_PRIVATE: 'false' }).webhooks.sandboxReach).toBe('public');
  });
});

describe('send time', () => {
  it('a sandbox endpoint registered while allowed is refused after a restart with the flag off; the receiver is never hit', async () => {
    const dataDir = makeDataDir();
    try {
      const before = await startWebhooksApp({ WEBHOOK_SANDBOX_ALLOW_PRIVATE: 'true' }, { dataDir });
      const m = await before.createMerchant();
      const hooks = webhooksApi(before.url, m.testKey);
      expectOk(await hooks.create({ url: `${receiver.url}/by-ip` }), 201);
      expectOk(await hooks.create({ url: `http://localhost:${receiver.port}/by-name` }), 201);
      await before.stop();

      const after = await startWebhooksApp({ WEBHOOK_SANDBOX_ALLOW_PRIVATE: 'false' }, { dataDir });
      try {
        expectOk(await merchantApi(after, m.testKey).create(formA()), 201);
        const log = await waitFor(async () => {
          const all = await allDeliveries(webhooksApi(after.url, m.testKey));
          return all.length === 2 && all.every((d) => d.attempts >= 1) && all;
        });
        for (const d of log) {
          expect(d).toMatchObject({ status: 'pending', last_status_code: null });
          expect(d.last_error).toMatch(/private address/);
        }
        expect(receiver.receipts.filter((r) => r.path === '/by-ip' || r.path === '/by-name')).toEqual([]);
      } finally {
        await after.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a live endpoint whose host resolves to loopback by the time it is sent (stored as if DNS changed) is refused', async () => {
    const t = await startWebhooksApp({ WEBHOOK_SANDBOX_ALLOW_PRIVATE: 'true' });
    try {
      const m = await t.createMerchant();
      const at = new Date().toISOString();
      // Registration would refuse it now; this is the endpoint as stored when its name still resolved publicly.
      await t.app.container.store.webhooks.insertEndpoint({
        id: 'we_rebound', merchantId: m.merchantId, mode: 'live', url: `https://localhost:${receiver.port}/rebound`, description: null,
        events: ['order.status_changed'], payloadShape: 'event', signing: 'symmetric', enabled: true, disabledReason: null, failingSince: null, createdAt: at, updatedAt: at,
      });
      expectOk(await merchantApi(t, m.liveKey).create(formA()), 201);
      const [delivery] = await waitFor(async () => {
        const all = await allDeliveries(webhooksApi(t.url, m.liveKey));
        return all.length === 1 && all[0]!.attempts >= 1 && all;
      });
      expect(delivery!.last_error).toBe('refused: localhost resolves to a private address');
      expect(receiver.receipts.filter((r) => r.path === '/rebound')).toEqual([]);
    } finally {
      await t.stop();
    }
  });
});
