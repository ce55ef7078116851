import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestApp, type TestApp } from '../helpers/app.js';

describe('GET /api/v1/health', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.stop());

  it('is public and reports version, service, time and each dependency', async () => {
    const res = await api(`${t.url}/api/v1/health`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, status: 'ok', version: 'v1.2.0', service: 'express-delivery', checks: { store: 'ok' } });
    expect(res.body.version).toMatch(/^v\d+\.\d+\.\d+$/);
    expect(Date.parse(res.body.timestamp)).not.toBeNaN();
    expect(res.headers.get('ratelimit-limit')).toBe('60');
  });
});
