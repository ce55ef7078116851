import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, api, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { creation, order as orderFixture } from '../contract/fixtures.js';
import { courierOnDuty, expectOk, formA, merchantApi, north, PLACES, standDown, startOrdersApp, type CourierClient } from '../orders/support.js';
import { codeOf, gqlOps, signedInOperator } from './support.js';

const ORDER_FIELDS = 'id merchantId mode status courierId late createdAt';
const LIST = `query ($status: [OrderStatus!], $merchantId: ID, $mode: Mode, $late: Boolean, $first: Int, $after: String) {
  adminOrders(status: $status, merchantId: $merchantId, mode: $mode, late: $late, first: $first, after: $after) {
    orders { ${ORDER_FIELDS} } nextCursor } }`;
const DETAIL = `query ($id: ID!) { adminOrder(id: $id) {
  order { ${ORDER_FIELDS} order { trackingNumber deliveryPin } } timeline { sequence from status actorKind actorId reason } } }`;
const mutation = (field: string, args: string) => {
  const type = field[0]!.toUpperCase() + field.slice(1);
  return `mutation (${args.split(', ').map((a) => `$${a.split(':')[0]}: ${a.split(': ')[1]}`).join(', ')}) { ${field}(${args.split(', ').map((a) => `${a.split(':')[0]}: $${a.split(':')[0]}`).join(', ')}) {
    __typename ... on Mutation${type}Success { data { ${ORDER_FIELDS} } } ... on AppError { code message } } }`;
};
const ASSIGN = mutation('adminAssignOrder', 'orderId: ID!, courierId: ID!');
const REASSIGN = mutation('adminReassignOrder', 'orderId: ID!, courierId: ID!');
const RELEASE = mutation('adminReleaseOrder', 'orderId: ID!, reason: String');
const CANCEL = mutation('adminCancelOrder', 'orderId: ID!, reason: String!');

const inMinutes = (m: number) => new Date(Date.now() + m * 60_000).toISOString();

describe('operators: orders across merchants and overrides (issue #29)', { timeout: 120_000 }, () => {
  let t: TestApp;
  let shopA: MerchantCredentials;
  let shopB: MerchantCredentials;
  const cookies: Record<'admin' | 'dispatcher' | 'support', string> = { admin: '', dispatcher: '', support: '' };
  let dispatcherId = '';
  const couriers: CourierClient[] = [];

  beforeAll(async () => {
    t = await startOrdersApp();
    shopA = await t.createMerchant({ name: 'Tienda A' });
    shopB = await t.createMerchant({ name: 'Tienda B' });
    for (const role of ['admin', 'dispatcher', 'support'] as const) {
      const signed = await signedInOperator(t, `${role}@ops.example.cl`, role);
      cookies[role] = signed.cookie;
      if (role === 'dispatcher') dispatcherId = signed.id;
    }
  });
  afterAll(async () => {
    await standDown(...couriers);
    await t.stop();
  });

  const ops = (role: keyof typeof cookies, query: string, variables: Record<string, unknown> = {}) => gqlOps(t, cookies[role], query, { variables });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON
  const dataOf = (body: any, field: string) => {
    const result = body.data?.[field];
    if (result?.__typename === 'AppError' || !result) throw new Error(`${field}: ${JSON.stringify(body)}`);
    // Mutations answer a typed result; queries the object itself.
    return result.__typename ? result.data : result;
  };

  it('adminOrders lists every merchant’s orders newest first, pages by cursor, filters by merchant, mode, status and lateness', async () => {
    // Scheduled two hours ahead: they stay new (not yet due), whatever couriers are on duty.
    const created: string[] = [];
    for (const [shop, mode] of [[shopA, 'test'], [shopB, 'test'], [shopA, 'live'], [shopB, 'live']] as const) {
      const res = expectOk(await merchantApi(t, mode === 'live' ? shop.liveKey : shop.testKey).create(formA({ pickup_after: inMinutes(120) })), 201);
      created.push(res.body.booking_id ?? res.body.id);
    }
    // A late order: its ETA passed and it is still in progress (stored as it would be after hours on the road).
    const late = orderFixture({ merchantId: shopB.merchantId, mode: 'test', status: 'picked_up', createdAt: new Date(Date.now() - 3 * 3600_000).toISOString(), estimatedDeliveryAt: inMinutes(-60) });
    await t.app.container.store.orders.create(creation(late));

    const all = dataOf((await ops('support', LIST, { first: 100 })).body, 'adminOrders');
    const ids = all.orders.map((o: { id: string }) => o.id);
    expect(ids.slice(0, 4)).toEqual([...created].reverse());
    expect(ids).toContain(late.id);
    expect(all.orders[0]).toMatchObject({ merchantId: shopB.merchantId, mode: 'live', status: 'new', courierId: null, late: false });

    const page1 = dataOf((await ops('support', LIST, { first: 2 })).body, 'adminOrders');
    const page2 = dataOf((await ops('support', LIST, { first: 2, after: page1.nextCursor })).body, 'adminOrders');
    expect([...page1.orders, ...page2.orders].map((o: { id: string }) => o.id)).toEqual(ids.slice(0, 4));

    const ofA = dataOf((await ops('dispatcher', LIST, { merchantId: shopA.merchantId })).body, 'adminOrders');
    expect(ofA.orders.map((o: { id: string }) => o.id)).toEqual([created[2], created[0]]);
    const liveOnly = dataOf((await ops('dispatcher', LIST, { mode: 'live' })).body, 'adminOrders');
    expect(liveOnly.orders.map((o: { id: string }) => o.id)).toEqual([created[3], created[2]]);
    const lateOnly = dataOf((await ops('admin', LIST, { late: true })).body, 'adminOrders');
    expect(lateOnly.orders.map((o: { id: string; late: boolean }) => [o.id, o.late])).toEqual([[late.id, true]]);
    const pickedUp = dataOf((await ops('admin', LIST, { status: ['picked_up', 'completed'] })).body, 'adminOrders');
    expect(pickedUp.orders.map((o: { id: string }) => o.id)).toEqual([late.id]);

    // A cursor that is no booking id is a typed validation error.
    expect(codeOf((await ops('admin', LIST, { after: 'nope' })).body, 'adminOrders')).toBe('VALIDATION_ERROR');
    // The admin token reads them too.
    const byToken = await api(`${t.url}/graphql`, { method: 'POST', key: ADMIN_TOKEN, body: { query: LIST, variables: { first: 1 } } });
    expect(byToken.body.data.adminOrders.orders).toHaveLength(1);
  });

  it('assign, reassign, release and cancel: through the lifecycle, audited with before/after, refused moves typed', async () => {
    const near = north(PLACES.providencia, 300);
    const [c1, c2] = [await courierOnDuty(t, { mode: 'test', at: near }), await courierOnDuty(t, { mode: 'test', at: near })];
    const liveCourier = await courierOnDuty(t, { mode: 'live', at: near });
    couriers.push(c1!, c2!, liveCourier);
    const shop = merchantApi(t, shopA.testKey);
    const scheduled = expectOk(await shop.create(formA({ pickup_after: inMinutes(120) })), 201).body.booking_id as string;

    // Support reads but never overrides; a courier of the other mode or an unknown one is refused.
    expect(codeOf((await ops('support', ASSIGN, { orderId: scheduled, courierId: c1!.id })).body, 'adminAssignOrder')).toBe('FORBIDDEN_ROLE');
    expect(codeOf((await ops('dispatcher', ASSIGN, { orderId: scheduled, courierId: liveCourier.id })).body, 'adminAssignOrder')).toBe('CONFLICT');
    expect(codeOf((await ops('dispatcher', ASSIGN, { orderId: scheduled, courierId: 'c_unknown' })).body, 'adminAssignOrder')).toBe('COURIER_NOT_FOUND');
    expect(codeOf((await ops('dispatcher', ASSIGN, { orderId: 'bk_unknown', courierId: c1!.id })).body, 'adminAssignOrder')).toBe('ORDER_NOT_FOUND');
    // Only an assigned order is released or reassigned.
    expect(codeOf((await ops('dispatcher', RELEASE, { orderId: scheduled })).body, 'adminReleaseOrder')).toBe('INVALID_STATUS_TRANSITION');
    expect(codeOf((await ops('dispatcher', REASSIGN, { orderId: scheduled, courierId: c2!.id })).body, 'adminReassignOrder')).toBe('INVALID_STATUS_TRANSITION');

    const assigned = dataOf((await ops('dispatcher', ASSIGN, { orderId: scheduled, courierId: c1!.id })).body, 'adminAssignOrder');
    expect(assigned).toMatchObject({ status: 'assigned', courierId: c1!.id });
    expect((await c1!.me()).body.courier.status).toBe('busy');
    expect(codeOf((await ops('dispatcher', ASSIGN, { orderId: scheduled, courierId: c2!.id })).body, 'adminAssignOrder')).toBe('INVALID_STATUS_TRANSITION');

    const reassigned = dataOf((await ops('admin', REASSIGN, { orderId: scheduled, courierId: c2!.id })).body, 'adminReassignOrder');
    expect(reassigned).toMatchObject({ status: 'assigned', courierId: c2!.id });
    expect((await c1!.me()).body.courier.status).toBe('available');
    expect((await c2!.me()).body.courier.status).toBe('busy');

    const released = dataOf((await ops('dispatcher', RELEASE, { orderId: scheduled, reason: 'cliente pidió esperar' })).body, 'adminReleaseOrder');
    // Not due for two hours: back in the queue, no courier.
    expect(released).toMatchObject({ status: 'new', courierId: null });
    expect((await c2!.me()).body.courier.status).toBe('available');

    const detail = dataOf((await ops('support', DETAIL, { id: scheduled })).body, 'adminOrder');
    expect(detail.order.order.deliveryPin).toBeNull();
    expect(detail.timeline.map((e: { from: string | null; status: string }) => `${e.from}→${e.status}`)).toEqual(['null→new', 'new→assigned', 'assigned→new', 'new→assigned', 'assigned→new']);
    expect(detail.timeline[1]).toMatchObject({ actorKind: 'admin', actorId: dispatcherId });
    expect(detail.timeline.at(-1)).toMatchObject({ actorKind: 'admin', reason: 'cliente pidió esperar' });

    const audit = await ops('support', `{ adminAuditLog(targetType: order, targetId: "${scheduled}") { entries { action actor { operatorId } before after } } }`);
    const entries = audit.body.data.adminAuditLog.entries as Array<{ action: string; actor: { operatorId: string }; before: string; after: string }>;
    expect(entries.map((e) => e.action)).toEqual(['order.release', 'order.reassign', 'order.assign']);
    expect(JSON.parse(entries[2]!.before)).toMatchObject({ status: 'new', courierId: null });
    expect(JSON.parse(entries[2]!.after)).toMatchObject({ status: 'assigned', courierId: c1!.id });
    expect(entries[2]!.actor.operatorId).toBe(dispatcherId);
    expect(JSON.parse(entries[1]!.before)).toMatchObject({ courierId: c1!.id });
    expect(JSON.parse(entries[1]!.after)).toMatchObject({ courierId: c2!.id });

    // An order due now is dispatched at once; released, it goes to the other courier, not back.
    const now = expectOk(await shop.create(formA()), 201).body;
    const dispatched = dataOf((await ops('admin', DETAIL, { id: now.booking_id })).body, 'adminOrder').order;
    expect(dispatched.status).toBe('assigned');
    const holder = [c1!, c2!].find((c) => c.id === dispatched.courierId)!;
    expect(holder).toBeDefined();
    const redispatched = dataOf((await ops('dispatcher', RELEASE, { orderId: now.booking_id })).body, 'adminReleaseOrder');
    expect(redispatched.status).toBe('assigned');
    expect(redispatched.courierId).toBe((holder === c1 ? c2 : c1)!.id);

    // Cancelled on the merchant's behalf: a reason is required; the merchant sees the cancellation.
    expect(codeOf((await ops('dispatcher', CANCEL, { orderId: now.booking_id, reason: '  ' })).body, 'adminCancelOrder')).toBe('VALIDATION_ERROR');
    const cancelled = dataOf((await ops('dispatcher', CANCEL, { orderId: now.booking_id, reason: 'tienda cerrada' })).body, 'adminCancelOrder');
    expect(cancelled).toMatchObject({ status: 'cancelled' });
    const seen = (await shop.get(now.booking_id)).body;
    expect(JSON.stringify(seen)).toContain('tienda cerrada');
    expect(codeOf((await ops('dispatcher', CANCEL, { orderId: now.booking_id, reason: 'otra vez' })).body, 'adminCancelOrder')).toBe('ORDER_NOT_CANCELLABLE');
    // The merchant's feed (what its webhooks carry) has the cancellation, as for its own cancel.
    const cancelledInFeed = async () => {
      let query = '?limit=100';
      for (let page = 0; page < 50; page++) {
        const res = (await api(`${t.url}/api/v1/events${query}`, { key: shopA.testKey })).body;
        const events = res.events as Array<{ type: string; order_id: string; payload: unknown }>;
        if (events.some((e) => e.type === 'order.status_changed' && e.order_id === now.booking_id && JSON.stringify(e.payload).includes('"status":"cancelled"'))) return true;
        if (!res.has_more) return false;
        query = `?limit=100&after=${encodeURIComponent(res.next_cursor)}`;
      }
      return false;
    };
    for (let tries = 0; !(await cancelledInFeed()) && tries < 200; tries++) await new Promise((r) => setTimeout(r, 50));
    expect(await cancelledInFeed()).toBe(true);
    expect((await c1!.me()).body.courier.status).toBe('available');
    expect((await c2!.me()).body.courier.status).toBe('available');
  });

  it('two operators assigning one order to different couriers at once: one wins, the other courier is free again', async () => {
    const near = north(PLACES.providencia, 500);
    const shop = merchantApi(t, shopB.testKey);
    for (let trial = 0; trial < 3; trial++) {
      const [a, b] = [await courierOnDuty(t, { mode: 'test', at: near }), await courierOnDuty(t, { mode: 'test', at: near })];
      couriers.push(a, b);
      const orderId = expectOk(await shop.create(formA({ pickup_after: inMinutes(120) })), 201).body.booking_id as string;
      const [ra, rb] = await Promise.all([
        ops('dispatcher', ASSIGN, { orderId, courierId: a.id }),
        ops('admin', ASSIGN, { orderId, courierId: b.id }),
      ]);
      const outcomes = [codeOf(ra.body, 'adminAssignOrder'), codeOf(rb.body, 'adminAssignOrder')];
      expect(outcomes.filter((code) => code === null), JSON.stringify(outcomes)).toHaveLength(1);
      expect(outcomes.filter((code) => code !== null)).toEqual(['INVALID_STATUS_TRANSITION']);
      const winner = outcomes[0] === null ? a : b;
      const loser = winner === a ? b : a;
      const detail = dataOf((await ops('support', DETAIL, { id: orderId })).body, 'adminOrder');
      expect(detail.order).toMatchObject({ status: 'assigned', courierId: winner.id });
      expect(detail.timeline.map((e: { status: string }) => e.status)).toEqual(['new', 'assigned']);
      expect((await loser.me()).body.courier.status).toBe('available');
      // Put it back for the next trial's couriers: cancelled on the merchant's behalf, the winner freed.
      dataOf((await ops('dispatcher', CANCEL, { orderId, reason: 'prueba' })).body, 'adminCancelOrder');
      expect((await winner.me()).body.courier.status).toBe('available');
      await standDown(a, b);
    }
  });
});
