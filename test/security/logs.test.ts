import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { ADMIN_TOKEN, api, gql, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';

/** A pino destination that keeps every line in memory. */
function memoryStream(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  return { stream, text: () => chunks.join('') };
}

/** The full credential and its random part (a log line holding only the tail is a leak too). */
function fragmentsOf(secret: string): string[] {
  const random = secret.replace(/^(ak_(live|test)_|ct_|whsec_)/, '');
  return [secret, random, random.slice(-16)];
}

describe('logs never contain credentials', () => {
  const logs = memoryStream();
  let t: TestApp;
  let m: MerchantCredentials;
  const secrets: string[] = [ADMIN_TOKEN];

  beforeAll(async () => {
    t = await startTestApp({ logger: createLogger({ level: 'info', destination: logs.stream }) });
    m = await t.createMerchant({ name: 'Logged Merchant' });
    secrets.push(m.liveKey, m.testKey, m.apiSecret);

    // REST, both header styles, success and failure paths.
    await api(`${t.url}/api/v1/merchants/me`, { headers: { authorization: `Bearer ${m.testKey}`, 'x-request-id': 'log-test-1' } });
    await api(`${t.url}/api/v1/merchants/me`, { headers: { 'x-api-key': m.liveKey } });
    await api(`${t.url}/api/v1/merchants/me`, { headers: { 'x-api-key': m.liveKey, 'x-test-mode': 'true' } });
    await api(`${t.url}/api/v1/merchants/settings`, { method: 'PATCH', key: m.liveKey, body: { prep_time_mins: 10 } });
    await api(`${t.url}/api/v1/merchants/settings`, { method: 'PATCH', key: m.testKey, body: { prep_time_mins: 999, secret: m.apiSecret } });
    await api(`${t.url}/api/v1/merchants/settings`, {
      method: 'PATCH',
      headers: { 'x-api-key': m.testKey, 'content-type': 'application/json' },
      rawBody: `{"prep_time_mins": "${m.liveKey}"`,
    });
    await api(`${t.url}/api/v1/nope`, { headers: { authorization: `Bearer ${m.testKey}` } });
    await api(`${t.url}/api/v1/merchants/me`, { headers: { authorization: `Basic ${Buffer.from(`${m.liveKey}:`).toString('base64')}` } });
    await api(`${t.url}/api/v1/merchants/me`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    await api(`${t.url}/api/v1/health`, { headers: { 'x-api-key': m.testKey } });

    // GraphQL: merchant key, admin token, and admin mutations whose results carry fresh credentials.
    await gql(t.url, '{ viewer { mode } }', { key: m.testKey });
    await api(`${t.url}/graphql`, { headers: { 'x-api-key': m.liveKey }, body: { query: '{ viewer { mode } }' } });
    const created = await gql(t.url, 'mutation { adminCreateMerchant(name: "Fresh") { ... on MutationAdminCreateMerchantSuccess { data { merchantId liveKey testKey apiSecret } } } }', {
      key: ADMIN_TOKEN,
    });
    const fresh = created.body.data.adminCreateMerchant.data;
    secrets.push(fresh.liveKey, fresh.testKey, fresh.apiSecret);
    const rotated = await gql(t.url, `mutation { adminRotateApiSecret(merchantId: "${m.merchantId}") { ... on MutationAdminRotateApiSecretSuccess { data { apiSecret } } } }`, {
      key: ADMIN_TOKEN,
    });
    secrets.push(rotated.body.data.adminRotateApiSecret.data.apiSecret);
    const courier = await gql(t.url, 'mutation { adminCreateCourier(name: "Log Rider", phone: "+56911112222", vehicle: bike, plate: "LOG1") { ... on MutationAdminCreateCourierSuccess { data { token } } } }', {
      key: ADMIN_TOKEN,
    });
    secrets.push(courier.body.data.adminCreateCourier.data.token);
    await gql(t.url, '{ viewer { mode } }', { key: `${ADMIN_TOKEN}-wrong` });

    // Stopping flushes the logger: everything the requests above produced is now in the stream.
    await t.stop();
  });
  afterAll(() => t.stop());

  it('captured the request log lines (so the check below is not vacuous)', () => {
    const lines = logs
      .text()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg?: string; req?: { url?: string; id?: string }; res?: { statusCode?: number } });
    const requests = lines.filter((l) => l.req?.url && l.res?.statusCode);
    expect(requests.length).toBeGreaterThanOrEqual(10);
    expect(requests).toContainEqual(expect.objectContaining({ req: expect.objectContaining({ id: 'log-test-1', url: '/api/v1/merchants/me' }), res: { statusCode: 200 } }));
    expect(requests.map((l) => l.res!.statusCode)).toEqual(expect.arrayContaining([200, 400, 401, 404]));
    expect(lines.some((l) => l.msg === 'listening')).toBe(true);
  });

  it('no API key, admin token, API secret or courier token appears anywhere in the logs', () => {
    expect(secrets).toHaveLength(9);
    const text = logs.text();
    for (const secret of secrets) {
      for (const fragment of fragmentsOf(secret)) expect(text.includes(fragment), `log contains ${fragment.slice(0, 12)}…`).toBe(false);
    }
    const basic = Buffer.from(`${m.liveKey}:`).toString('base64');
    expect(text.includes(basic)).toBe(false);
  });

  it('credential headers are never logged, not even redacted', () => {
    const text = logs.text().toLowerCase();
    expect(text).not.toContain('"authorization"');
    expect(text).not.toContain('x-api-key');
  });
});
