/**
 * Issue #26 item 1: no WebSocket entrance lets a peer make the server buffer or print without
 * bound. A client that floods protocol pings or refused frames is answered from the socket's
 * unpaid allowance, then closed with 4429; one that never reads is closed at once, not at the next
 * heartbeat (30 s by default, 60 s here); nothing reaches stderr. The last block runs the server in
 * its own process to watch its memory and its output, as the issue measured them.
 */
import { rmSync } from 'node:fs';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLOOD_CLOSE, UNPAID_MESSAGES } from '../../realtime/flood-guard.js';
import { loadConfig } from '../../src/config.js';
import { buildContainer } from '../../src/container.js';
import { makeDataDir, type TestApp } from '../helpers/app.js';
import { spawnServer, type ServerProcess } from '../helpers/process.js';
import { flood, rssBytes, type FloodOptions } from '../helpers/socket-flood.js';
import { createCourier, startOrdersApp } from '../orders/support.js';
import { assignedOrder } from './support.js';

const FLOOD_MS = 4000;
const GRAPHQL_WS = { protocol: 'graphql-transport-ws', init: JSON.stringify({ type: 'connection_init' }) };
const PING = JSON.stringify({ type: 'ping' });
/** A courier frame refused before any budget is drawn (an error reply no budget pays for). */
const REFUSED = JSON.stringify({ type: 'hello' });
const wsUrl = (base: string, path: string) => `${base.replace(/^http/, 'ws')}${path}`;

describe('socket floods, answered from the unpaid allowance', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startOrdersApp({ env: { TRACKING_HEARTBEAT_MS: '60000', TRUST_PROXY: '127.0.0.1,::1' } });
  });
  afterAll(() => t?.stop());

  /** Each test floods from its own address: the per-address allowance is counted over every socket of one. */
  let addresses = 0;
  const fromNewAddress = () => ({ 'x-forwarded-for': `203.0.113.${++addresses}` });

  const expectAllowanceThenClose = (result: Awaited<ReturnType<typeof flood>>) => {
    expect(result.closed?.code).toBe(FLOOD_CLOSE.tooManyMessages);
    expect(result.received).toBeLessThanOrEqual(UNPAID_MESSAGES.perSocket);
    expect(result.sent).toBeGreaterThan(UNPAID_MESSAGES.perSocket);
  };

  it('graphql-ws: an anonymous socket sending pings gets at most the allowance of pongs, then 4429', async () => {
    const result = await flood({ url: wsUrl(t.url, '/graphql'), headers: fromNewAddress(), ...GRAPHQL_WS, frame: PING, read: true, durationMs: FLOOD_MS });
    expectAllowanceThenClose(result);
  });

  it('graphql-ws: sockets opened again from one address share its allowance', async () => {
    const headers = fromNewAddress();
    const results = [];
    for (let i = 0; i < UNPAID_MESSAGES.perAccount / UNPAID_MESSAGES.perSocket + 2; i++) {
      results.push(await flood({ url: wsUrl(t.url, '/graphql'), headers, ...GRAPHQL_WS, frame: PING, read: true, durationMs: FLOOD_MS }));
    }
    for (const result of results) expect(result.closed?.code).toBe(FLOOD_CLOSE.tooManyMessages);
    expect(results.reduce((sum, r) => sum + r.received, 0)).toBe(UNPAID_MESSAGES.perAccount);
    expect(results.at(-1)!.received).toBe(0);
  });

  it('graphql-ws: refused operations are unpaid replies too', async () => {
    const deep = Array.from({ length: 12 }).reduce<unknown>((inner) => [inner], 1);
    const tooDeep = JSON.stringify({ type: 'subscribe', id: 'x', payload: { query: '{ __typename }', variables: { a: deep } } });
    // One id per frame: graphql-ws closes a socket that reuses an id (4409) before the guard could.
    let n = 0;
    const frame = () => tooDeep.replace('"id":"x"', `"id":"${++n}"`);
    expectAllowanceThenClose(await flood({ url: wsUrl(t.url, '/graphql'), headers: fromNewAddress(), ...GRAPHQL_WS, frame, read: true, durationMs: FLOOD_MS }));
  });

  it('courier socket: refused frames get at most the allowance of error frames, then 4429', async () => {
    const courier = await createCourier(t, { mode: 'test' });
    const result = await flood({ url: wsUrl(t.url, '/api/v1/couriers/me/live'), headers: { authorization: `Bearer ${courier.token}`, ...fromNewAddress() }, frame: REFUSED, read: true, durationMs: FLOOD_MS });
    expectAllowanceThenClose(result);
  });

  it('tracking socket: WebSocket pings and messages get at most the allowance, then 4429', async () => {
    const m = await t.createMerchant({ name: 'Flood Shop' });
    const { order } = await assignedOrder(t, m.liveKey);
    const url = wsUrl(t.url, `/api/v1/tracking/${order.tracking_number}/live`);
    expectAllowanceThenClose(await flood({ url, headers: fromNewAddress(), frame: 'ping', read: true, durationMs: FLOOD_MS }));
    expectAllowanceThenClose(await flood({ url, headers: fromNewAddress(), frame: 'x', read: true, durationMs: FLOOD_MS }));
  });
});

describe('socket floods from clients that never read, against a server process', () => {
  let server: ServerProcess;
  let dataDir: string;
  let courierToken: string;

  beforeAll(async () => {
    dataDir = makeDataDir();
    const env = { DATA_DIR: dataDir, TRACKING_HEARTBEAT_MS: '60000' };
    const container = await buildContainer(loadConfig({ ...env, ADMIN_TOKEN: 'unused-admin-token-0123456789' }), { logger: pino({ level: 'silent' }) });
    try {
      courierToken = (await container.services.admin.createCourier({ input: { name: 'Flood Courier', phone: '+56987654321', vehicle: 'car', plate: 'FLOOD1', mode: 'test' } })).token;
    } finally {
      await container.close();
    }
    server = await spawnServer(env, { startTimeoutMs: 60_000 });
  }, 90_000);
  afterAll(async () => {
    await server?.kill();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** Floods with `sockets` clients at once; returns their results, the server's RSS growth and what it printed meanwhile. */
  async function measure(sockets: number, options: Omit<FloodOptions, 'read' | 'durationMs'>) {
    const rssBefore = rssBytes(server.child.pid!);
    const outputBefore = server.output().length;
    const results = await Promise.all(Array.from({ length: sockets }, () => flood({ ...options, read: false, durationMs: FLOOD_MS })));
    // Failed pending writes are reported once the sockets are gone; the log is flushed every 250 ms.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    return { results, rssGrowth: rssBytes(server.child.pid!) - rssBefore, printed: server.output().slice(outputBefore) };
  }

  it('4 anonymous graphql-ws sockets flooding pings are closed at once; the server neither grows nor prints', async () => {
    const { results, rssGrowth, printed } = await measure(4, { url: wsUrl(server.url, '/graphql'), ...GRAPHQL_WS, frame: PING });
    for (const result of results) expect(result.closed, 'closed by the server during the flood').not.toBeNull();
    expect(rssGrowth).toBeLessThan(50 * 1024 * 1024);
    expect(printed.length).toBeLessThan(16 * 1024);
    expect(printed).not.toContain('Internal error');
  }, 30_000);

  it('a courier socket flooding refused frames is closed at once; the server neither grows nor prints', async () => {
    const { results, rssGrowth, printed } = await measure(1, { url: wsUrl(server.url, '/api/v1/couriers/me/live'), headers: { authorization: `Bearer ${courierToken}` }, frame: REFUSED });
    expect(results[0]!.closed, 'closed by the server during the flood').not.toBeNull();
    expect(rssGrowth).toBeLessThan(50 * 1024 * 1024);
    expect(printed.length).toBeLessThan(16 * 1024);
  }, 30_000);
});
