/**
 * OWASP API9:2023 Improper Inventory Management. That every route Express serves under /api/v1 is
 * in the OpenAPI document (and nothing documented is missing) is tested in
 * test/rest/openapi.test.ts ("documents every route the Express app serves under /api/v1, and
 * nothing else"); that every GraphQL root field declares who may call it, in
 * api5-function-authorisation.test.ts. This file pins what lives outside both: the routes outside
 * /api/v1 and the WebSocket upgrade paths, so a new unauthenticated surface cannot appear unnoticed.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRestApp } from '../../rest/app.js';
import { createMetrics } from '../../src/metrics.js';
import type { TestApp } from '../helpers/app.js';
import { expressRoutes } from '../helpers/openapi.js';
import { startSecurityApp } from './support.js';

/** The status line a WebSocket upgrade to `path` gets. */
function upgrade(url: string, path: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n`);
    });
    let text = '';
    socket.on('data', (c: Buffer) => {
      text += c.toString('latin1');
      if (text.includes('\r\n')) {
        socket.destroy();
        resolve(text.split('\r\n')[0]!);
      }
    });
    socket.on('error', () => resolve(text));
    socket.on('close', () => resolve(text.split('\r\n')[0] ?? ''));
  });
}

describe('API9: inventory of everything reachable', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startSecurityApp();
  });
  afterAll(() => t?.stop());

  it('outside /api/v1, Express serves exactly the landing page, the tracking page, the console, the ops app, the courier app, GraphiQL\'s and their assets, and /metrics', () => {
    const app = createRestApp(t.app.container, createMetrics());
    const outside = expressRoutes(app).filter((r) => !r.split(' ')[1]!.startsWith('/api/v1/'));
    // /metrics needs METRICS_TOKEN, and without one is 404 in production (test/security/production-mode.test.ts).
    expect(outside.sort()).toEqual(
      [
        'GET /', 'GET /assets/landing.css', 'GET /graphiql/assets/:file', 'GET /metrics', 'GET /track', 'GET /track/:reference', 'GET /track/assets/:file', 'GET /track/stops/:orderId/:stopId',
        'GET /console', 'GET /console/{*path}', 'GET /console/assets/:file',
        'GET /ops', 'GET /ops/{*path}', 'GET /ops/assets/:file',
        'GET /courier', 'GET /courier/{*path}', 'GET /courier/assets/:file', 'GET /courier/icon.svg', 'GET /courier/manifest.webmanifest', 'GET /courier/sw.js',
      ].sort(),
    );
  });

  it('WebSocket upgrades are accepted on /graphql and the tracking live path only', async () => {
    expect(await upgrade(t.url, '/graphql')).toMatch(/^HTTP\/1\.1 101/);
    expect(await upgrade(t.url, '/api/v1/tracking/ABC123/live')).toMatch(/^HTTP\/1\.1 101/);
    for (const path of ['/', '/api/v1/health', '/api/v1/tracking/ABC123', '/graphql/x', '/track/ABC123', '/metrics', '/api/v1/tracking/ABC123/live/x']) {
      expect(await upgrade(t.url, path), path).toMatch(/^HTTP\/1\.1 404/);
    }
  });
});
