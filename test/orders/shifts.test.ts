/**
 * Courier shifts (issue #37): a duty has a planned end (`shift_ends_at`), and dispatch offers no
 * order whose predicted pickup (now + the approach at the travel model, or the ready time,
 * whichever is later) falls after it; a courier near its end finishes what it carries and gets
 * nothing new; past its end, the courier goes off duty once it carries nothing. A disabled courier
 * gets nothing, whatever path would offer it work. Through REST, GraphQL and the operators' API,
 * on the real SQLite store, with a clock the tests move.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { courierResponseSchema } from '../../rest/openapi/responses-orders.js';
import type { Clock } from '../../src/ports/clock.js';
import { gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { gqlOps, signedInOperator } from '../operators/support.js';
import {
  EVIDENCE, PLACES, createCourier, expectError, expectOk, expectWireShape, formA, merchantApi, north, standDown,
  startOrdersApp, type CourierClient, type MerchantApi,
} from './support.js';

const MIN = 60_000;
let offsetMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };
const inMinutes = (minutes: number) => new Date(clock.now().getTime() + minutes * MIN).toISOString();

let t: TestApp;
let m: MerchantCredentials;
let orders: MerchantApi;
let hired: CourierClient[] = [];
/** Near the pickup: a motorcycle's approach is 2 minutes at the travel model. */
const NEAR = north(PLACES.providencia, 400);

async function hire(options: { shiftEndsAt?: string | null; at?: typeof NEAR } = {}): Promise<CourierClient> {
  const courier = await createCourier(t, { mode: 'live' });
  hired.push(courier);
  expectOk(await courier.duty(true, options.shiftEndsAt));
  expectOk(await courier.position(options.at ?? NEAR));
  return courier;
}

const courierRecord = async (c: CourierClient) => (await t.app.container.store.couriers.findById(c.id))!;

beforeAll(async () => {
  // Dispatch at creation (DISPATCH_POLICY=greedy): these live orders have a prep time, which the planned
  // policy leaves to its round (its own shift check: test/dispatch/planned-dispatch.test.ts).
  t = await startOrdersApp({ clock, env: { DISPATCH_POLICY: 'greedy' } });
  m = await t.createMerchant({ name: 'Shift Merchant', address: 'Av. Providencia 1234, Providencia' });
  orders = merchantApi(t, m.liveKey);
});
afterAll(() => t?.stop());
afterEach(async () => {
  offsetMs = 0;
  await standDown(...hired);
  hired = [];
  // Whatever a test left queued is cancelled: the next test's couriers would take it.
  for (const order of await t.app.container.store.orders.listQueued({ mode: 'live', vehicleTypes: ['bike', 'motorcycle', 'car', 'van'], limit: 50 })) {
    expectOk(await orders.cancel(order.id, { reason: 'test over' }));
  }
});

async function create(prepMins: number): Promise<string> {
  const res = expectOk(await orders.create(formA({ prep_time_mins: prepMins })), 201);
  return res.body.booking_id as string;
}

async function orderStatus(id: string): Promise<{ status: string; courierId: string | null }> {
  const order = (await t.app.container.store.orders.findById(id))!;
  return { status: order.status, courierId: order.courierId };
}

describe('POST /couriers/me/duty with shift_ends_at', () => {
  it('stores the planned end going on duty and presents it; off duty clears it', async () => {
    const courier = await createCourier(t, { mode: 'live' });
    hired.push(courier);
    const end = inMinutes(240);
    const on = expectOk(await courier.duty(true, end));
    expectWireShape(courierResponseSchema, on.body);
    expect(on.body.courier).toMatchObject({ status: 'available', shift_ends_at: end });
    expect((await courier.me()).body.courier.shift_ends_at).toBe(end);
    const off = expectOk(await courier.duty(false));
    expect(off.body.courier).toMatchObject({ status: 'off_duty', shift_ends_at: null });
    // Without the field: no planned end.
    expect(expectOk(await courier.duty(true)).body.courier.shift_ends_at).toBeNull();
  });

  it('takes an offset time and stores the instant; on duty again with shift_ends_at changes it, null clears it', async () => {
    const courier = await hire({ shiftEndsAt: null });
    const end = new Date(clock.now().getTime() + 3 * 3_600_000);
    const chileTime = new Date(end.getTime() - 3 * 3_600_000).toISOString().replace('Z', '-03:00');
    expect(expectOk(await courier.duty(true, chileTime)).body.courier).toMatchObject({ status: 'available', shift_ends_at: end.toISOString() });
    expect(expectOk(await courier.duty(true, null)).body.courier.shift_ends_at).toBeNull();
    // on_duty true without the field keeps what is there.
    expectOk(await courier.duty(true, end.toISOString()));
    expect(expectOk(await courier.duty(true)).body.courier.shift_ends_at).toBe(end.toISOString());
  });

  it('refuses a past end, one more than 16 hours ahead, a malformed one, and one with going off duty (400, nothing changed)', async () => {
    const courier = await createCourier(t, { mode: 'live' });
    hired.push(courier);
    for (const bad of [inMinutes(-1), inMinutes(16 * 60 + 1), 'tomorrow', '2026-13-01T10:00:00Z']) {
      const res = expectError(await courier.duty(true, bad), 400, 'VALIDATION_ERROR');
      expect(res.body.error.fields?.[0]?.field).toBe('shift_ends_at');
    }
    expect((await courierRecord(courier)).status).toBe('off_duty');
    expectOk(await courier.duty(true, inMinutes(16 * 60)));
    expectError(await courier.duty(false, inMinutes(60)), 400, 'VALIDATION_ERROR');
    expect((await courierRecord(courier)).status).toBe('available');
  });
});

describe('dispatch and the planned end', () => {
  it('offers no order whose pickup falls after the shift end; a courier without that limit takes it', async () => {
    // The order is ready in 15 minutes; the courier's duty ends in 10.
    const ending = await hire({ shiftEndsAt: inMinutes(10) });
    const id = await create(15);
    expect(await orderStatus(id)).toEqual({ status: 'new', courierId: null });
    // The same when the order waits in the queue and the courier comes (back) on duty.
    expectOk(await ending.duty(false));
    expectOk(await ending.duty(true, inMinutes(10)));
    expect(await orderStatus(id)).toEqual({ status: 'new', courierId: null });
    const free = await hire({ at: north(PLACES.providencia, 900) });
    expect(await orderStatus(id)).toEqual({ status: 'assigned', courierId: free.id });
  });

  it('offers the order when the pickup fits before the end, and when the courier moves its end later', async () => {
    const courier = await hire({ shiftEndsAt: inMinutes(10) });
    const id = await create(15);
    expect((await orderStatus(id)).status).toBe('new');
    // A later end makes the queued order reachable: it is offered at once.
    expect(expectOk(await courier.duty(true, inMinutes(30))).body.courier.status).toBe('busy');
    expect(await orderStatus(id)).toEqual({ status: 'assigned', courierId: courier.id });
    const order = (await t.app.container.store.orders.findById(id))!;
    expect(Date.parse(order.estimatedPickupAt)).toBeLessThanOrEqual(Date.parse((await courierRecord(courier)).shiftEndsAt!));
  });

  it('counts the approach at the travel model: a courier too far to arrive before its end is passed over', async () => {
    // 10 km north of the pickup: 13 km at the detour factor, 30 minutes by motorcycle; the end is in 20.
    const far = await hire({ shiftEndsAt: inMinutes(20), at: north(PLACES.providencia, 10_000) });
    const id = await create(0);
    expect((await orderStatus(id)).status).toBe('new');
    expectOk(await far.duty(true, inMinutes(45)));
    expect(await orderStatus(id)).toEqual({ status: 'assigned', courierId: far.id });
  });

  it('a courier near its end finishes what it carries and gets nothing new', async () => {
    const courier = await hire({ shiftEndsAt: inMinutes(20) });
    const carried = await create(0);
    expect(await orderStatus(carried)).toEqual({ status: 'assigned', courierId: courier.id });
    // Queued while it is busy: ready in 25 minutes, after its end.
    const queued = await create(25);
    expect((await orderStatus(queued)).status).toBe('new');
    expectOk(await courier.status(carried, 'picked_up'));
    expectOk(await courier.deliver(carried, { driver_id: courier.id, coords: PLACES.lasCondes, ...EVIDENCE }));
    expect((await orderStatus(carried)).status).toBe('completed');
    expect(await orderStatus(queued)).toEqual({ status: 'new', courierId: null });
    expect((await courierRecord(courier)).status).toBe('available');
  });

  it('past the end, the courier goes off duty once it carries nothing; going off duty with work in hand stays refused', async () => {
    const courier = await hire({ shiftEndsAt: inMinutes(30) });
    const carried = await create(0);
    expect(await orderStatus(carried)).toEqual({ status: 'assigned', courierId: courier.id });
    expectError(await courier.duty(false), 409, 'CONFLICT');
    offsetMs = 31 * MIN;
    expectOk(await courier.position(NEAR));
    expect((await courierRecord(courier)).status).toBe('busy');
    const next = await create(0);
    expectOk(await courier.status(carried, 'picked_up'));
    expectOk(await courier.deliver(carried, { driver_id: courier.id, coords: PLACES.lasCondes, ...EVIDENCE }));
    const me = expectOk(await courier.me()).body.courier;
    expect(me).toMatchObject({ status: 'off_duty', shift_ends_at: null });
    expect((await orderStatus(next)).status).toBe('new');
  });

  it('an available courier whose end passes goes off duty at the next reconciler round, and leaves the geo index', async () => {
    const courier = await hire({ shiftEndsAt: inMinutes(30) });
    offsetMs = 31 * MIN;
    expectOk(await courier.position(NEAR));
    const report = await t.app.container.services.reconciler.reconcile();
    expect(report.shiftsEnded).toBeGreaterThanOrEqual(1);
    expect((await courierRecord(courier)).status).toBe('off_duty');
    const near = await t.app.container.geoIndex.nearest({ mode: 'live', vehicles: ['motorcycle'], point: NEAR, limit: 50 });
    expect(near.map((c) => c.courierId)).not.toContain(courier.id);
  });
});

describe('account status on every assignment path', () => {
  it('a disabled courier finishing a kept order gets no queued order: it goes off duty', async () => {
    const courier = await hire();
    const kept = await create(0);
    expect(await orderStatus(kept)).toEqual({ status: 'assigned', courierId: courier.id });
    expectOk(await courier.status(kept, 'picked_up'));
    const queued = await create(0);
    expect((await orderStatus(queued)).status).toBe('new');
    const disabled = await t.app.container.services.admin.disableCourier({ input: { courierId: courier.id } });
    expect(disabled.keptOrderIds).toEqual([kept]);
    // The merchant confirms the delivery of the order it kept (the courier's token no longer works).
    expectOk(await orders.deliver(kept, { driver_id: courier.id, coords: PLACES.lasCondes, ...EVIDENCE }));
    expect(await orderStatus(queued)).toEqual({ status: 'new', courierId: null });
    expect(await courierRecord(courier)).toMatchObject({ accountStatus: 'disabled', status: 'off_duty', job: null });
    await t.app.container.services.admin.enableCourier({ input: { courierId: courier.id } });
  });

  it('offerWork gives a disabled courier nothing and never puts it in the geo index', async () => {
    const courier = await hire();
    const queued = await create(0);
    expect(await orderStatus(queued)).toEqual({ status: 'assigned', courierId: courier.id });
    expectOk(await orders.cancel(queued, { reason: 'not needed' }));
    const id = courier.id;
    await t.app.container.services.admin.disableCourier({ input: { courierId: id } });
    // As stored a moment before it was disabled (another node's read): available, active.
    const stale = { ...(await courierRecord(courier)), status: 'available' as const, accountStatus: 'active' as const };
    const waiting = await create(0);
    await t.app.container.services.dispatch.offerWork({ courier: { ...stale, accountStatus: 'disabled' } });
    expect(await orderStatus(waiting)).toEqual({ status: 'new', courierId: null });
    const near = await t.app.container.geoIndex.nearest({ mode: 'live', vehicles: ['motorcycle'], point: NEAR, limit: 50 });
    expect(near.map((c) => c.courierId)).not.toContain(id);
    await t.app.container.services.admin.enableCourier({ input: { courierId: id } });
  });
});

const ERR = '... on AppError { code message fields { field message } }';
const DUTY = `mutation ($on: Boolean!, $end: DateTime) { courierSetDuty(onDuty: $on, shiftEndsAt: $end) {
  __typename ... on MutationCourierSetDutySuccess { data { id status shiftEndsAt } } ${ERR} } }`;
const ME = '{ courier { id status shiftEndsAt } }';

describe('GraphQL: courierSetDuty(shiftEndsAt)', () => {
  it('goes on duty with a planned end, which dispatch respects; refuses one out of range as a typed error', async () => {
    const courier = await createCourier(t, { mode: 'live' });
    hired.push(courier);
    const as = async (query: string, variables: Record<string, unknown> = {}) => {
      const res = await gql(t.url, query, { key: courier.token, variables });
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      return res.body.data;
    };
    const late = (await as(DUTY, { on: true, end: inMinutes(17 * 60) })).courierSetDuty;
    expect(late).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR', fields: [{ field: 'shift_ends_at' }] });
    const end = inMinutes(10);
    expect((await as(DUTY, { on: true, end })).courierSetDuty).toEqual({ __typename: 'MutationCourierSetDutySuccess', data: { id: courier.id, status: 'available', shiftEndsAt: end } });
    expect((await as(ME)).courier).toEqual({ id: courier.id, status: 'available', shiftEndsAt: end });
    expectOk(await courier.position(NEAR));
    const id = await create(15);
    expect((await orderStatus(id)).status).toBe('new');
    expect((await as(DUTY, { on: true, end: inMinutes(60) })).courierSetDuty.data).toMatchObject({ status: 'busy' });
    expect(await orderStatus(id)).toEqual({ status: 'assigned', courierId: courier.id });
    expect((await as(DUTY, { on: false, end: inMinutes(60) })).courierSetDuty).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR' });
  });
});

const SET_END = `mutation ($id: ID!, $end: DateTime) { adminSetCourierShiftEnd(courierId: $id, shiftEndsAt: $end) {
  __typename ... on MutationAdminSetCourierShiftEndSuccess { data { courierId dutyStatus shiftEndsAt } } ${ERR} } }`;
const COURIERS = `query { adminCouriers(mode: live, first: 200) { couriers { id dutyStatus shiftEndsAt } } }`;
const ASSIGN = `mutation ($order: ID!, $courier: ID!) { adminAssignOrder(orderId: $order, courierId: $courier) {
  __typename ... on MutationAdminAssignOrderSuccess { data { id status } } ${ERR} } }`;

describe("operators' API: adminSetCourierShiftEnd and the operator's assignment", () => {
  let cookie: string;
  beforeAll(async () => {
    cookie = (await signedInOperator(t, 'turnos@ops.example.cl', 'dispatcher')).cookie;
  });
  const ops = async (query: string, variables: Record<string, unknown> = {}) => {
    const res = await gqlOps(t, cookie, query, { variables });
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    return res.body.data;
  };

  it('sets, changes and clears an on-duty courier\'s planned end (shown in adminCouriers, audited); CONFLICT off duty; VALIDATION_ERROR out of range', async () => {
    const courier = await hire();
    const end = inMinutes(120);
    expect((await ops(SET_END, { id: courier.id, end })).adminSetCourierShiftEnd).toEqual({
      __typename: 'MutationAdminSetCourierShiftEndSuccess', data: { courierId: courier.id, dutyStatus: 'available', shiftEndsAt: end },
    });
    expect((await ops(COURIERS)).adminCouriers.couriers.find((c: { id: string }) => c.id === courier.id)).toEqual({ id: courier.id, dutyStatus: 'available', shiftEndsAt: end });
    expect((await courier.me()).body.courier.shift_ends_at).toBe(end);
    expect((await ops(SET_END, { id: courier.id, end: inMinutes(-5) })).adminSetCourierShiftEnd).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR', fields: [{ field: 'shiftEndsAt' }] });
    expect((await ops(SET_END, { id: courier.id, end: null })).adminSetCourierShiftEnd.data.shiftEndsAt).toBeNull();
    const audit = await t.app.container.store.audit.list({ filter: { targetType: 'courier', targetId: courier.id }, limit: 10 });
    expect(audit.map((e) => e.action)).toEqual(['courier.set_shift_end', 'courier.set_shift_end']);
    expectOk(await courier.duty(false));
    expect((await ops(SET_END, { id: courier.id, end })).adminSetCourierShiftEnd).toMatchObject({ __typename: 'AppError', code: 'CONFLICT' });
    expect((await ops(SET_END, { id: 'cr_01NOSUCHCOURIER0000000000', end })).adminSetCourierShiftEnd).toMatchObject({ __typename: 'AppError', code: 'COURIER_NOT_FOUND' });
  });

  it("refuses to assign an order the courier could not pick up before its end (CONFLICT); a later end set by the operator lets it", async () => {
    const courier = await hire({ shiftEndsAt: inMinutes(10) });
    const id = await create(15);
    expect((await orderStatus(id)).status).toBe('new');
    const refused = (await ops(ASSIGN, { order: id, courier: courier.id })).adminAssignOrder;
    expect(refused).toMatchObject({ __typename: 'AppError', code: 'CONFLICT' });
    expect(refused.message).toContain('shift ends');
    expect((await ops(SET_END, { id: courier.id, end: inMinutes(60) })).adminSetCourierShiftEnd.data.dutyStatus).toBe('busy');
    expect(await orderStatus(id)).toEqual({ status: 'assigned', courierId: courier.id });
  });
});
