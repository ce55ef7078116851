import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, api, startTestApp, type TestApp } from '../../helpers/app.js';
import { createLogger } from '../../../src/logger.js';

/** Admin-token guesses are limited per address: after N failures even the right token is refused until the lockout ends. */
describe('abuse: admin-token failures lock the address out, and are logged', () => {
  let t: TestApp;
  const lines: Array<Record<string, unknown>> = [];
  const adminQuery = (token: string, from: string) =>
    api(`${t.url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': from }, body: { query: '{ adminMerchants(limit: 1) { id } }' } });

  beforeAll(async () => {
    t = await startTestApp({
      env: { ADMIN_MAX_FAILURES: '3', ADMIN_LOCKOUT_SECONDS: '900', TRUST_PROXY: '127.0.0.1,::1', LOG_LEVEL: 'info' },
      logger: createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } }),
    });
  });
  afterAll(() => t.stop());

  it('three wrong tokens from one address, then the right one is refused with 429 there and accepted elsewhere', async () => {
    const attacker = '198.51.100.66';
    for (let i = 0; i < 3; i++) {
      const res = await adminQuery(`wrong-admin-token-${i}-xxxxxxxx`, attacker);
      expect(res.status).toBe(401);
      expect(res.body.errors[0].extensions.code).toBe('INVALID_ADMIN_TOKEN');
    }
    const locked = await adminQuery(ADMIN_TOKEN, attacker);
    expect(locked.status).toBe(429);
    expect(locked.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(60);

    const elsewhere = await adminQuery(ADMIN_TOKEN, '198.51.100.67');
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.errors).toBeUndefined();

    const refusals = lines.filter((l) => l.msg === 'admin token refused');
    expect(refusals).toHaveLength(3);
    expect(refusals.every((l) => l.address === attacker)).toBe(true);
    expect(lines.some((l) => l.msg === 'admin token attempt from a locked-out address')).toBe(true);
    // The guesses themselves are never logged.
    expect(JSON.stringify(lines)).not.toContain('wrong-admin-token');
  });
});
