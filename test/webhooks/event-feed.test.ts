/**
 * The replayable event feed (issue #17 item 6), REST and GraphQL: a merchant whose endpoint was
 * down catches up from its last cursor (nothing missed, no duplicates, in order, the payloads the
 * webhooks carried); paging and limits; another merchant's and the other mode's events never
 * appear; a cursor past retention is 410.
 */
import ngeohash from 'ngeohash';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { PLACES, expectError, expectOk, formA, merchantApi } from '../orders/support.js';
import { startReceiver, startWebhooksApp, waitFor, webhooksApi, type Receiver } from './support.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

const ZONE = ngeohash.encode(PLACES.providencia.lat, PLACES.providencia.lng, 9).slice(0, 5);

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await startWebhooksApp({ WEBHOOK_MAX_RETRIES: '0' });
  receiver = await startReceiver();
  receiver.respond((r) => (r.path === '/down' ? 503 : 200));
});
afterAll(async () => {
  await t?.stop();
  await receiver?.close();
});

const feed = (key: string, query = '') => api(`${t.url}/api/v1/events${query}`, { key });

/** Reads every page from `after` with `limit`, checking each page's cursors. */
async function readAll(key: string, after: string, limit: number): Promise<{ events: Json[]; cursor: string }> {
  const events: Json[] = [];
  let cursor = after;
  for (let page = 0; page < 100; page++) {
    const res = expectOk(await feed(key, `?after=${encodeURIComponent(cursor)}&limit=${limit}`));
    const got = res.body.events as Json[];
    expect(got.length).toBeLessThanOrEqual(limit);
    if (got.length > 0) expect(res.body.next_cursor).toBe(got.at(-1)!.cursor);
    events.push(...got);
    cursor = res.body.next_cursor as string;
    if (!res.body.has_more) return { events, cursor };
  }
  throw new Error('the feed did not end');
}

describe('catching up after an endpoint outage', () => {
  let m: MerchantCredentials;
  beforeAll(async () => {
    m = await t.createMerchant({ name: 'Feed Merchant' });
  });

  it('reads from the last cursor: every event once, in commit order, with the payloads the webhooks carried', async () => {
    const start = expectOk(await feed(m.testKey));
    expect(start.body).toMatchObject({ events: [], has_more: false });
    const cursor = start.body.next_cursor as string;

    const hooks = webhooksApi(t.url, m.testKey);
    expectOk(await hooks.create({ url: `${receiver.url}/down` }), 201);
    const orders = merchantApi(t, m.testKey);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(expectOk(await orders.create(formA()), 201).body.booking_id as string);
    expectOk(await orders.cancel(ids[1]!, { reason: 'Duplicado' }));
    const batch = expectOk(await orders.consolidate({ geohash_zone: ZONE, target_car_type: 'car' })).body.batch_ids as string[];
    expect(batch.length).toBeGreaterThan(0);
    // The events of another merchant and of the live mode in between.
    const other = await t.createMerchant({ name: 'Feed Other' });
    expectOk(await merchantApi(t, other.testKey).create(formA()), 201);
    expectOk(await merchantApi(t, m.liveKey).create(formA()), 201);

    // What happened, from the orders' own histories (the feed's ids are their event ids).
    const histories = await Promise.all(ids.map(async (id) => expectOk(await orders.events(id)).body.events as Json[]));
    const orderEvents = histories.flat();
    const { events, cursor: end } = await readAll(m.testKey, cursor, 2);

    expect(events.filter((e) => e.type === 'order.status_changed').map((e) => e.id).sort()).toEqual(orderEvents.map((e) => e.id).sort());
    expect(events.filter((e) => e.type === 'batch.created').map((e) => e.payload.batch_id)).toEqual(batch);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect(new Set(events.map((e) => e.cursor)).size).toBe(events.length);
    // Commit order: the creations in the order made, each order's changes by sequence, the cancel after its creation.
    const creations = events.filter((e) => e.payload.sequence === 1).map((e) => e.order_id);
    expect(creations).toEqual(ids);
    for (const id of ids) {
      const mine = events.filter((e) => e.order_id === id).map((e) => e.payload.sequence as number);
      expect(mine).toEqual([...mine].sort((a, b) => a - b));
    }
    expect(events.findIndex((e) => e.order_id === ids[1] && e.payload.status === 'cancelled')).toBeGreaterThan(events.findIndex((e) => e.order_id === ids[3]));
    expect(events.every((e) => e.payload.booking_id === undefined || ids.includes(e.payload.booking_id))).toBe(true);

    // The webhooks that failed carried exactly these payloads.
    const sent = await waitFor(() => {
      const down = receiver.receipts.filter((r) => r.path === '/down');
      return down.length >= events.length && down;
    }, { what: 'every delivery attempted once' });
    const key = (p: Json) => (p.event === 'batch.created' ? `batch:${p.batch_id}` : `${p.booking_id}:${p.sequence}`);
    const bodies = new Map(sent.map((r) => JSON.parse(r.body) as Json).map((p) => [key(p), p]));
    for (const e of events) expect(e.payload).toEqual(bodies.get(key(e.payload)));

    // Nothing new: the same cursor back, and it stays valid.
    const after = expectOk(await feed(m.testKey, `?after=${encodeURIComponent(end)}`));
    expect(after.body).toMatchObject({ events: [], next_cursor: end, has_more: false });
    // One more change appears after it.
    expectOk(await orders.cancel(ids[0]!));
    const next = expectOk(await feed(m.testKey, `?after=${encodeURIComponent(end)}`)).body.events as Json[];
    expect(next.map((e) => [e.order_id, e.payload.status])).toEqual([[ids[0], 'cancelled']]);
  });

  it("never shows another merchant's or the other mode's events", async () => {
    const mine = (expectOk(await feed(m.testKey, '?limit=1000')).body.events as Json[]).map((e) => e.id);
    const live = expectOk(await feed(m.liveKey, '?limit=1000')).body.events as Json[];
    expect(live).toHaveLength(1);
    expect(mine).not.toContain(live[0]!.id);
    const stranger = await t.createMerchant({ name: 'Feed Stranger' });
    expect(expectOk(await feed(stranger.testKey)).body.events).toEqual([]);
    // Another merchant's cursor reads this merchant's own feed from that position, nothing else.
    const theirs = (expectOk(await feed(m.testKey)).body.events as Json[])[0]!.cursor as string;
    expectError(await feed(stranger.testKey, `?after=${encodeURIComponent(theirs)}`), 400, 'VALIDATION_ERROR');
  });

  it('validates the query: limit 1..1000 (default 100), a cursor of this feed', async () => {
    const page = expectOk(await feed(m.testKey));
    expect((page.body.events as Json[]).length).toBeLessThanOrEqual(100);
    expectError(await feed(m.testKey, '?limit=0'), 400, 'VALIDATION_ERROR');
    expectError(await feed(m.testKey, '?limit=1001'), 400, 'VALIDATION_ERROR');
    expectError(await feed(m.testKey, '?after=not-a-cursor'), 400, 'VALIDATION_ERROR');
    expectError(await feed(m.testKey, '?cursor=x'), 400, 'VALIDATION_ERROR');
    expectError(await api(`${t.url}/api/v1/events`), 401, 'INVALID_API_KEY');
  });
});

describe('GraphQL events(after:, first:)', () => {
  const EVENTS = `query ($after: String, $first: Int) { events(after: $after, first: $first) {
    __typename ... on QueryEventsSuccess { data { edges { cursor node { id type createdAt orderId payload } } pageInfo { hasNextPage endCursor } } }
    ... on AppError { code message } } }`;

  it('pages the same events with the same cursors as REST, and keeps merchants and modes apart', async () => {
    const m = await t.createMerchant({ name: 'Feed GraphQL' });
    const orders = merchantApi(t, m.testKey);
    for (let i = 0; i < 3; i++) expectOk(await orders.create(formA()), 201);
    const events = async (variables: Json, key = m.testKey) => (await gql(t.url, EVENTS, { key, variables })).body.data.events as Json;
    const first = await events({ first: 2 });
    expect(first.__typename).toBe('QueryEventsSuccess');
    expect(first.data.edges).toHaveLength(2);
    expect(first.data.pageInfo).toEqual({ hasNextPage: true, endCursor: first.data.edges[1].cursor });
    const rest = expectOk(await feed(m.testKey)).body.events as Json[];
    expect(first.data.edges.map((e: Json) => [e.cursor, e.node.id, JSON.parse(e.node.payload)])).toEqual(rest.slice(0, 2).map((e) => [e.cursor, e.id, e.payload]));
    const second = await events({ first: 2, after: first.data.pageInfo.endCursor });
    expect(second.data.edges.map((e: Json) => e.node.id)).toEqual([rest[2]!.id]);
    expect(second.data.pageInfo.hasNextPage).toBe(false);
    expect(await events({ first: 1001 })).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR' });
    expect(await events({ after: 'nope' })).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR' });
    expect((await events({}, m.liveKey)).data.edges).toEqual([]);
    expect(first.data.edges[0].node.type).toBe('ORDER_STATUS_CHANGED');
  });

  it('FeedEvent.type names only the types the feed carries', async () => {
    const m = await t.createMerchant({ name: 'Feed Types' });
    const type = await gql(t.url, '{ __type(name: "FeedEventType") { enumValues { name } } }', { key: m.testKey });
    expect(type.body.data.__type.enumValues.map((v: Json) => v.name).sort()).toEqual(['BATCH_CREATED', 'ORDER_STATUS_CHANGED']);
  });
});

describe('retention', () => {
  it('a cursor whose following events were removed is 410 EVENT_CURSOR_EXPIRED; without a cursor the feed starts at the oldest kept', async () => {
    const m = await t.createMerchant({ name: 'Feed Retention' });
    const orders = merchantApi(t, m.testKey);
    expectOk(await orders.create(formA()), 201);
    const cursor = expectOk(await feed(m.testKey)).body.next_cursor as string;
    expectOk(await orders.create(formA()), 201);
    expectOk(await orders.create(formA()), 201);
    // Retention removes everything written so far (all merchants: the window is global).
    const { store } = t.app.container;
    while ((await store.events.prune({ createdBefore: new Date(Date.now() + 60_000).toISOString(), limit: 1000 })) > 0);
    expectError(await feed(m.testKey, `?after=${encodeURIComponent(cursor)}`), 410, 'EVENT_CURSOR_EXPIRED');
    const latest = expectOk(await orders.create(formA()), 201).body.booking_id as string;
    expectError(await feed(m.testKey, `?after=${encodeURIComponent(cursor)}`), 410, 'EVENT_CURSOR_EXPIRED');
    const fresh = expectOk(await feed(m.testKey)).body.events as Json[];
    expect(fresh.map((e) => e.order_id)).toEqual([latest]);
  });
});
