import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mode } from '../../src/domain/types.js';
import { gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import {
  EVIDENCE,
  PLACES,
  courierOnDuty,
  createCourier,
  expectError,
  expectOk,
  formA,
  merchantApi,
  north,
  standDown,
  startOrdersApp,
  type CourierClient,
} from './support.js';

interface Identifiers {
  booking_id: string;
  reference_id: string;
  tracking_number: string;
  order_number: string;
}

const idsOf = (o: Identifiers) => [o.booking_id, o.reference_id, o.tracking_number, o.order_number];

describe('tenant and mode isolation on every order path', () => {
  let t: TestApp;
  let a: MerchantCredentials;
  let b: MerchantCredentials;
  /** A's orders: one per mode, each with a shared reference id that B also uses. */
  const aOrder = {} as Record<Mode, Identifiers>;
  let bSameRef: Identifiers;

  beforeAll(async () => {
    t = await startOrdersApp();
    a = await t.createMerchant({ name: 'Merchant A' });
    b = await t.createMerchant({ name: 'Merchant B' });
    for (const mode of ['test', 'live'] as const) {
      const key = mode === 'live' ? a.liveKey : a.testKey;
      const created = expectOk(await merchantApi(t, key).create(formA({ reference_id: 'SHARED-REF-1' })), 201);
      aOrder[mode] = expectOk(await merchantApi(t, key).get(created.body.booking_id)).body;
    }
    const mine = expectOk(await merchantApi(t, b.testKey).create(formA({ reference_id: 'SHARED-REF-1' })), 201);
    bSameRef = expectOk(await merchantApi(t, b.testKey).get(mine.body.booking_id)).body;
  });
  afterAll(() => t?.stop());

  /** Every merchant path on an order, by one identifier. */
  const paths = (key: string, ref: string) => {
    const orders = merchantApi(t, key);
    return {
      get: () => orders.get(ref),
      events: () => orders.events(ref),
      cancel: () => orders.cancel(ref, { reason: 'not yours' }),
      deliver: () => orders.deliver(ref, { driver_id: 'cr_x', coords: PLACES.lasCondes, ...EVIDENCE }),
    };
  };

  async function expectUnchanged(mode: Mode): Promise<void> {
    const key = mode === 'live' ? a.liveKey : a.testKey;
    const now = expectOk(await merchantApi(t, key).get(aOrder[mode].booking_id)).body;
    expect(now.status).toBe('new');
    expect(expectOk(await merchantApi(t, key).events(aOrder[mode].booking_id)).body.events).toHaveLength(1);
  }

  it("B's keys get 404 ORDER_NOT_FOUND for A's orders by every identifier, on every path", async () => {
    for (const mode of ['test', 'live'] as const) {
      for (const key of [b.testKey, b.liveKey]) {
        for (const ref of idsOf(aOrder[mode]).filter((r) => r !== 'SHARED-REF-1')) {
          for (const [name, call] of Object.entries(paths(key, ref))) {
            const res = expectError(await call(), 404, 'ORDER_NOT_FOUND');
            // The answer may echo the identifier given, never reveal another one of that order.
            for (const other of idsOf(aOrder[mode]).filter((r) => r !== ref)) expect(JSON.stringify(res.body), `${name} ${ref}`).not.toContain(other);
          }
        }
      }
      await expectUnchanged(mode);
    }
  });

  it("a reference id both merchants use resolves to the caller's own order only", async () => {
    const res = expectOk(await merchantApi(t, b.testKey).get('SHARED-REF-1'));
    expect(res.body.booking_id).toBe(bSameRef.booking_id);
    expectError(await merchantApi(t, b.liveKey).get('SHARED-REF-1'), 404, 'ORDER_NOT_FOUND');
    expect(expectOk(await merchantApi(t, a.testKey).get('SHARED-REF-1')).body.booking_id).toBe(aOrder.test.booking_id);
    expect(expectOk(await merchantApi(t, a.liveKey).get('SHARED-REF-1')).body.booking_id).toBe(aOrder.live.booking_id);
  });

  it("A's live key cannot reach A's test orders, nor the test key A's live orders", async () => {
    for (const [key, mode] of [
      [a.liveKey, 'test'],
      [a.testKey, 'live'],
    ] as const) {
      for (const ref of [aOrder[mode].booking_id, aOrder[mode].tracking_number, aOrder[mode].order_number]) {
        for (const call of Object.values(paths(key, ref))) expectError(await call(), 404, 'ORDER_NOT_FOUND');
      }
      await expectUnchanged(mode);
    }
  });

  it("lists never show another merchant's orders or the other mode's", async () => {
    const listed = async (key: string) => expectOk(await merchantApi(t, key).list('?limit=100')).body.orders.map((o: Identifiers) => o.booking_id);
    expect(await listed(a.testKey)).toEqual([aOrder.test.booking_id]);
    expect(await listed(a.liveKey)).toEqual([aOrder.live.booking_id]);
    expect(await listed(b.testKey)).toEqual([bSameRef.booking_id]);
    expect(await listed(b.liveKey)).toEqual([]);
  });

  it("GraphQL order, orders, cancelOrder and confirmDelivery are scoped the same way", async () => {
    const ORDER = `query ($id: String!) { order(id: $id) { __typename ... on QueryOrderSuccess { data { id } } ... on AppError { code } } }`;
    for (const ref of idsOf(aOrder.test).filter((r) => r !== 'SHARED-REF-1')) {
      for (const key of [b.testKey, a.liveKey]) {
        const res = await gql(t.url, ORDER, { key, variables: { id: ref } });
        expect(res.body.data.order, ref).toEqual({ __typename: 'AppError', code: 'ORDER_NOT_FOUND' });
      }
      expect((await gql(t.url, ORDER, { key: a.testKey, variables: { id: ref } })).body.data.order.data.id).toBe(aOrder.test.booking_id);
    }
    const LIST = `{ orders(first: 100) { __typename ... on QueryOrdersSuccess { data { nodes { id } } } } }`;
    expect((await gql(t.url, LIST, { key: b.testKey })).body.data.orders.data.nodes).toEqual([{ id: bSameRef.booking_id }]);

    const CANCEL = `mutation ($id: String!) { cancelOrder(id: $id) { __typename ... on AppError { code } } }`;
    expect((await gql(t.url, CANCEL, { key: b.testKey, variables: { id: aOrder.test.booking_id } })).body.data.cancelOrder).toEqual({
      __typename: 'AppError',
      code: 'ORDER_NOT_FOUND',
    });
    const DELIVER = `mutation ($id: String!, $input: ConfirmDeliveryInput!) { confirmDelivery(id: $id, input: $input) { __typename ... on AppError { code } } }`;
    const input = { driverId: 'cr_x', coords: PLACES.lasCondes, photoUrl: EVIDENCE.photo_url, signatureUrl: EVIDENCE.signature_url };
    expect((await gql(t.url, DELIVER, { key: b.testKey, variables: { id: aOrder.test.booking_id, input } })).body.data.confirmDelivery).toEqual({
      __typename: 'AppError',
      code: 'ORDER_NOT_FOUND',
    });
    await expectUnchanged('test');
  });

  it('batches are scoped too: another merchant or mode gets 404', async () => {
    // Two of A's test orders consolidated into one batch (no couriers: it stays pending).
    const orders = merchantApi(t, a.testKey);
    const extra = expectOk(await orders.create(formA({ reference_id: 'BATCH-ISO' })), 201).body.booking_id;
    const consolidated = expectOk(await orders.consolidate({ geohash_zone: '66jcc', target_car_type: 'car' }));
    expect(consolidated.body.batches_created).toBe(1);
    const batchId: string = consolidated.body.batch_ids[0];
    expectOk(await orders.batch(batchId));
    expectError(await merchantApi(t, b.testKey).batch(batchId), 404, 'NOT_FOUND');
    expectError(await merchantApi(t, a.liveKey).batch(batchId), 404, 'NOT_FOUND');
    const BATCH = `query ($id: ID!) { batch(id: $id) { __typename ... on AppError { code } } }`;
    expect((await gql(t.url, BATCH, { key: b.testKey, variables: { id: batchId } })).body.data.batch).toEqual({ __typename: 'AppError', code: 'NOT_FOUND' });
    // B consolidating the same zone takes none of A's orders.
    expect(expectOk(await merchantApi(t, b.testKey).consolidate({ geohash_zone: '66jcc' })).body.batches_created).toBe(0);
    for (const id of [aOrder.test.booking_id, extra]) expect(expectOk(await orders.get(id)).body.batch_id).toBe(batchId);
    for (const id of [aOrder.test.booking_id, extra]) expectOk(await orders.cancel(id));
  });
});

describe('couriers see only their own mode and their own orders', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  beforeAll(async () => {
    t = await startOrdersApp();
    m = await t.createMerchant();
  });
  afterAll(() => t?.stop());

  it('a live courier never gets a sandbox order (nor the reverse), however close it is', async () => {
    const live = await courierOnDuty(t, { mode: 'live', at: north(PLACES.providencia, 5) });
    const testOrder = expectOk(await merchantApi(t, m.testKey).create(formA()), 201).body;
    expect(testOrder.status).toBe('new');
    expect(expectOk(await live.me()).body.courier).toMatchObject({ status: 'available', job: null });
    expectError(await live.status(testOrder.booking_id, 'arrived_pickup'), 404, 'ORDER_NOT_FOUND');

    // A sandbox courier far away takes it, and a live order goes to the live courier.
    const sandbox = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 20_000) });
    expect(expectOk(await merchantApi(t, m.testKey).get(testOrder.booking_id)).body.driver.id).toBe(sandbox.id);
    const liveOrder = expectOk(await merchantApi(t, m.liveKey).create(formA()), 201).body;
    expect(expectOk(await merchantApi(t, m.liveKey).get(liveOrder.booking_id)).body.driver.id).toBe(live.id);
    expectError(await sandbox.status(liveOrder.booking_id, 'arrived_pickup'), 404, 'ORDER_NOT_FOUND');

    for (const [key, id] of [
      [m.testKey, testOrder.booking_id],
      [m.liveKey, liveOrder.booking_id],
    ] as const) {
      expectOk(await merchantApi(t, key).cancel(id));
    }
    await standDown(live, sandbox);
  });

  it("a courier cannot see or move another courier's order: 404 on every courier path", async () => {
    const holder = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 100) });
    const id: string = expectOk(await merchantApi(t, m.testKey).create(formA()), 201).body.booking_id;
    const other: CourierClient = await createCourier(t, { mode: 'test' });
    const order = expectOk(await merchantApi(t, m.testKey).get(id)).body;
    expect(order.driver.id).toBe(holder.id);

    for (const ref of [id, order.tracking_number, order.order_number, order.reference_id]) {
      expectError(await other.status(ref, 'arrived_pickup'), 404, 'ORDER_NOT_FOUND');
      expectError(await other.release(ref), 404, 'ORDER_NOT_FOUND');
      expectError(await other.deliver(ref, { driver_id: other.id, coords: PLACES.lasCondes, ...EVIDENCE }), 404, 'ORDER_NOT_FOUND');
    }
    expect(expectOk(await other.orders()).body.orders).toEqual([]);
    expect(expectOk(await holder.orders()).body.orders.map((o: { booking_id: string }) => o.booking_id)).toEqual([id]);

    // Through GraphQL as well.
    const ADVANCE = `mutation ($id: ID!) { courierAdvanceOrder(id: $id, status: arrived_pickup) { __typename ... on AppError { code } } }`;
    expect((await gql(t.url, ADVANCE, { key: other.token, variables: { id } })).body.data.courierAdvanceOrder).toEqual({
      __typename: 'AppError',
      code: 'ORDER_NOT_FOUND',
    });
    // Merchant keys are not courier tokens, and courier tokens are not merchant keys.
    expectError(await merchantApi(t, other.token).get(id), 401, 'INVALID_API_KEY');
    const asMerchant = await fetch(`${t.url}/api/v1/couriers/me`, { headers: { authorization: `Bearer ${m.testKey}` } });
    expect(asMerchant.status).toBe(401);
    expect(((await asMerchant.json()) as { error: { code: string } }).error.code).toBe('INVALID_COURIER_TOKEN');

    expect(expectOk(await merchantApi(t, m.testKey).get(id)).body.status).toBe('assigned');
    expectOk(await merchantApi(t, m.testKey).cancel(id));
    await standDown(holder);
  });
});
