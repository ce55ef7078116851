import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api, type TestApp } from '../../helpers/app.js';
import { expectOk, formA, merchantApi, startOrdersApp } from '../../orders/support.js';
import { openLive, until, type LiveClient } from '../../realtime/support.js';
import { codesOf, wsClient } from './support.js';

const TRACKING_SUBSCRIPTION = 'subscription ($ref: String!) { tracking(reference: $ref) { status } }';
const BUDGET = 8;

/**
 * One per-address budget for every anonymous operation, whatever the entrance; once it is spent, a
 * real and an unknown tracking reference get the same answer everywhere (no enumeration oracle).
 * No TRUST_PROXY: a spoofed X-Forwarded-For changes nothing.
 */
describe('abuse: the anonymous budget is one per address across every entrance', () => {
  let t: TestApp;
  let realRef: string;
  const sockets: Array<ReturnType<typeof wsClient>> = [];
  const lives: LiveClient[] = [];
  const spoof = (n: number) => ({ 'x-forwarded-for': `203.0.113.${n}` });

  beforeAll(async () => {
    t = await startOrdersApp({ env: { PUBLIC_RATE_LIMIT_PER_MIN: String(BUDGET), TRACKING_HEARTBEAT_MS: '60000' } });
    const shop = await t.createMerchant({ name: 'Budget Shop' });
    realRef = expectOk(await merchantApi(t, shop.testKey).create(formA()), 201).body.tracking_number as string;
  });
  afterAll(async () => {
    await Promise.all(sockets.map((s) => s.dispose()));
    for (const live of lives) live.ws.terminate();
    await t.stop();
  });

  it('REST, pages, GraphQL over HTTP, socket operations and tracking-socket connects all draw from it', async () => {
    const remaining: string[] = [];
    const rest = await api(`${t.url}/api/v1/tracking/${realRef}`, { headers: spoof(1) });
    expect(rest.status).toBe(200);
    remaining.push(rest.headers.get('ratelimit-remaining')!);
    const page = await fetch(`${t.url}/track/${realRef}`, { headers: spoof(2) });
    await page.arrayBuffer();
    remaining.push(page.headers.get('ratelimit-remaining')!);
    const graphql = await api(`${t.url}/graphql`, { method: 'POST', headers: spoof(3), body: { query: '{ __typename }' } });
    expect(graphql.status).toBe(200);
    remaining.push(graphql.headers.get('ratelimit-remaining')!);
    expect(remaining).toEqual([String(BUDGET - 1), String(BUDGET - 2), String(BUDGET - 3)]);

    const socket = wsClient(t.url, undefined, spoof(4));
    sockets.push(socket);
    const tracking = socket.start(TRACKING_SUBSCRIPTION, { ref: realRef });
    const live = openLive(t.url, realRef, { headers: spoof(5) });
    lives.push(live);
    await live.waitFor((m) => m.type === 'snapshot', 'the snapshot');
    // Five taken; the rest go on unknown references, then everything is refused alike.
    for (let i = 0; i < BUDGET - 5; i++) expect((await api(`${t.url}/api/v1/tracking/EXD-0000-0000-000${i}`)).status).toBe(404);
    expect(tracking.errors).toEqual([]);

    const known = await api(`${t.url}/api/v1/tracking/${realRef}`, { headers: spoof(6) });
    const unknown = await api(`${t.url}/api/v1/tracking/EXD-ZZZZ-ZZZZ-ZZZZ`, { headers: spoof(7) });
    expect([known.status, unknown.status]).toEqual([429, 429]);
    expect(known.body).toEqual(unknown.body);
    expect(known.body).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });

    const knownOp = await socket.run(TRACKING_SUBSCRIPTION, { ref: realRef });
    const unknownOp = await socket.run(TRACKING_SUBSCRIPTION, { ref: 'EXD-ZZZZ-ZZZZ-ZZZZ' });
    expect(codesOf(knownOp)).toEqual(['RATE_LIMITED']);
    expect(codesOf(unknownOp)).toEqual(['RATE_LIMITED']);

    const overHttp = await api(`${t.url}/graphql`, { method: 'POST', body: { query: '{ __typename }' } });
    expect(overHttp.status).toBe(429);
    expect(overHttp.body.errors[0].extensions.code).toBe('RATE_LIMITED');

    const knownLive = openLive(t.url, realRef);
    const unknownLive = openLive(t.url, 'EXD-ZZZZ-ZZZZ-ZZZZ');
    lives.push(knownLive, unknownLive);
    expect([(await knownLive.closed).code, (await unknownLive.closed).code]).toEqual([4429, 4429]);
    expect((await fetch(`${t.url}/track/${realRef}`)).status).toBe(429);
  });
});

describe('abuse: per-address socket caps and per-socket operation caps', () => {
  let t: TestApp;
  const sockets: Array<ReturnType<typeof wsClient>> = [];
  const lives: LiveClient[] = [];

  beforeAll(async () => {
    t = await startOrdersApp({ env: { MAX_SOCKETS_PER_ADDRESS: '3', MAX_SUBSCRIPTIONS_PER_SOCKET: '2', TRACKING_HEARTBEAT_MS: '60000' } });
  });
  afterEach(async () => {
    await Promise.all(sockets.splice(0).map((s) => s.dispose()));
    for (const live of lives.splice(0)) await live.close();
  });
  afterAll(() => t.stop());

  it('the fourth socket from one address is closed with 4429, whatever its kind; a closed one frees its slot', async () => {
    for (let i = 0; i < 3; i++) {
      const s = wsClient(t.url);
      sockets.push(s);
      expect(codesOf(await s.run('{ __typename }'))).toEqual([]);
    }
    const fourth = wsClient(t.url);
    sockets.push(fourth);
    const refused = await fourth.run('{ __typename }');
    expect(refused.closed?.code ?? fourth.closed()?.code).toBe(4429);
    const live = openLive(t.url, 'EXD-0000-0000-0000');
    lives.push(live);
    expect((await live.closed).code).toBe(4429);

    await sockets.shift()!.dispose();
    await until(async () => {
      const again = wsClient(t.url);
      sockets.push(again);
      const outcome = await again.run('{ __typename }');
      return codesOf(outcome).length === 0 && !outcome.closed;
    }, 'a slot to be free again');
  });

  it('an anonymous socket holds at most two operations at once; the third is refused without closing the socket', async () => {
    const shop = await t.createMerchant({ name: 'Caps Shop' });
    const ref = expectOk(await merchantApi(t, shop.testKey).create(formA()), 201).body.tracking_number as string;
    const s = wsClient(t.url);
    sockets.push(s);
    const open = [s.start(TRACKING_SUBSCRIPTION, { ref }), s.start(TRACKING_SUBSCRIPTION, { ref })];
    await until(() => t.app.container.services.tracking.watchedOrders() === 1, 'both subscriptions to be live');
    const third = await s.run(TRACKING_SUBSCRIPTION, { ref });
    expect(codesOf(third)).toEqual(['RATE_LIMITED']);
    expect(open.every((o) => !o.done && o.errors.length === 0)).toBe(true);
    expect(s.closed()).toBeNull();
    expect(codesOf(await s.run('{ __typename }'))).toEqual(['RATE_LIMITED']);
  });

  it('an anonymous subscription over HTTP (SSE) holds a slot of its address like a socket does', async () => {
    const shop = await t.createMerchant({ name: 'SSE Caps Shop' });
    const ref = expectOk(await merchantApi(t, shop.testKey).create(formA()), 201).body.tracking_number as string;
    const aborts: AbortController[] = [];
    const sse = async () => {
      const abort = new AbortController();
      aborts.push(abort);
      const res = await fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query: TRACKING_SUBSCRIPTION, variables: { ref } }),
        signal: abort.signal,
      });
      return { res, reader: res.body!.getReader() };
    };
    const open = [await sse(), await sse(), await sse()];
    expect(open.map((o) => o.res.status)).toEqual([200, 200, 200]);
    await until(() => t.app.container.door.sockets.stats().addresses === 1, 'the slots to be taken');

    const fourth = await sse();
    const text = new TextDecoder().decode((await fourth.reader.read()).value);
    expect(text).toContain('RATE_LIMITED');
    const live = openLive(t.url, ref);
    lives.push(live);
    expect((await live.closed).code).toBe(4429);

    aborts[0]!.abort();
    await until(async () => {
      const again = openLive(t.url, ref);
      lives.push(again);
      const first = await Promise.race([again.waitFor((m) => m.type === 'snapshot', 'a snapshot').then(() => 'snapshot'), again.closed.then((c) => String(c.code))]);
      return first === 'snapshot';
    }, 'a slot to be freed by the closed stream');
    for (const abort of aborts) abort.abort();
  });
});
