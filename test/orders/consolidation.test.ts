import ngeohash from 'ngeohash';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchResponseSchema, consolidationResponseSchema } from '../../rest/openapi/responses-orders.js';
import { gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import {
  EVIDENCE,
  PLACES,
  courierOnDuty,
  expectError,
  expectOk,
  expectWireShape,
  formA,
  formB,
  historyOf,
  merchantApi,
  north,
  startOrdersApp,
  type MerchantApi,
} from './support.js';

/** The merchant's address (Providencia) geocodes to the comuna centroid; its 5-character geohash cell is the zone. */
const ZONE = ngeohash.encode(PLACES.providencia.lat, PLACES.providencia.lng, 9).slice(0, 5);
const CAR_MAX_KG = 150;

type Wire = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

describe('POST /orders/consolidate', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let orders: MerchantApi;
  beforeAll(async () => {
    t = await startOrdersApp();
    m = await t.createMerchant({ name: 'Consolidation Merchant', address: 'Av. Providencia 1234, Providencia' });
    orders = merchantApi(t, m.testKey);
  });
  afterAll(() => t?.stop());

  /** Form B: the pickup is the merchant address, inside ZONE. */
  const inZone = async (kg: number) => expectOk(await orders.create(formB({ total_weight_kg: kg, customer_rut: undefined })), 201).body.booking_id as string;

  it('batches the zone\'s orders to fit the car, takes assigned ones back first and dispatches each batch to one car courier', async () => {
    expect(ZONE).toBe('66jcc');

    // Step 1: a motorcycle picks up a small order of the zone: picked-up orders are never consolidated.
    const moto = await courierOnDuty(t, { mode: 'test', vehicle: 'motorcycle', at: north(PLACES.providencia, 200) });
    const pickedUp = await inZone(5);
    expectOk(await moto.status(pickedUp, 'picked_up'));

    // Step 2: a car courier takes the first car-sized order; the rest queue up.
    const carX = await courierOnDuty(t, { mode: 'test', vehicle: 'car', at: north(PLACES.providencia, 300) });
    const first = await inZone(60);
    expect(expectOk(await orders.get(first)).body.driver.id).toBe(carX.id);
    const queued = [await inZone(60), await inZone(50), await inZone(40), await inZone(30)];
    const tooHeavy = await inZone(200); // van-sized: cannot go in a car batch
    const elsewhere = expectOk(await orders.create(formA({ pickup: { address: 'Irarrázaval 3000, Ñuñoa', coords: PLACES.nunoa }, total_weight_kg: 10 })), 201).body
      .booking_id as string;
    for (const id of [...queued, tooHeavy, elsewhere]) expect(expectOk(await orders.get(id)).body.status).toBe('new');

    // Step 3: consolidate the zone for cars.
    const res = expectOk(await orders.consolidate({ geohash_zone: ZONE.toUpperCase(), target_car_type: 'car' }));
    expectWireShape(consolidationResponseSchema, res.body);
    expect(res.body.batches_created).toBe(2);
    expect(res.body.batch_ids).toEqual(res.body.batches.map((b: Wire) => b.id));
    const batches: Wire[] = res.body.batches;
    const members = [first, ...queued];
    expect(batches.flatMap((b) => b.order_ids).sort()).toEqual([...members].sort());
    for (const batch of batches) {
      expect(batch).toMatchObject({ geohash_zone: ZONE, vehicle_type: 'car', is_test: true });
      expect(batch.total_weight_kg).toBeLessThanOrEqual(CAR_MAX_KG);
      expect(batch.order_ids.length).toBeGreaterThanOrEqual(2);
    }
    expect(batches.map((b) => b.total_weight_kg).sort((x, y) => y - x)).toEqual([150, 90]);

    // Step 4: only one car courier is free (X, released from its order): one batch goes to it, the other waits.
    const [assigned, pending] = [batches.find((b) => b.status === 'assigned')!, batches.find((b) => b.status === 'pending')!];
    expect(assigned.courier_id).toBe(carX.id);
    expect(pending.courier_id).toBeNull();
    for (const id of assigned.order_ids) {
      expect(expectOk(await orders.get(id)).body).toMatchObject({ status: 'assigned', batch_id: assigned.id, driver: { id: carX.id } });
    }
    for (const id of pending.order_ids) {
      expect(expectOk(await orders.get(id)).body).toMatchObject({ status: 'new', batch_id: pending.id, driver: null });
    }
    expect(expectOk(await carX.me()).body.courier).toMatchObject({ status: 'busy', job: { kind: 'batch', id: assigned.id } });
    expect(expectOk(await carX.orders()).body.orders.map((o: Wire) => o.booking_id).sort()).toEqual([...assigned.order_ids].sort());

    // The order taken back from X has it in its history.
    const firstEvents = expectOk(await orders.events(first)).body.events;
    expect(historyOf(firstEvents).slice(0, 3)).toEqual(['new', 'assigned', 'new']);
    expect(firstEvents[2]).toMatchObject({ actor: { kind: 'system', id: null }, reason: 'consolidated into a batch' });

    // Left out: picked up, too heavy for a car, outside the zone.
    for (const id of [pickedUp, tooHeavy, elsewhere]) expect(expectOk(await orders.get(id)).body.batch_id).toBeNull();

    // Step 5: a second car courier coming on duty takes the pending batch, all of it.
    const carY = await courierOnDuty(t, { mode: 'test', vehicle: 'car', at: north(PLACES.providencia, 5000) });
    const nowAssigned = expectOk(await orders.batch(pending.id));
    expectWireShape(batchResponseSchema, nowAssigned.body);
    expect(nowAssigned.body.batch).toMatchObject({ status: 'assigned', courier_id: carY.id });
    for (const id of pending.order_ids) expect(expectOk(await orders.get(id)).body.driver.id).toBe(carY.id);

    // Step 6: X delivers its batch; the batch completes and X, free again, takes the queued order it can carry.
    for (const id of assigned.order_ids) expectOk(await carX.status(id, 'picked_up'));
    for (const id of assigned.order_ids) expectOk(await carX.deliver(id, { driver_id: carX.id, coords: PLACES.lasCondes, ...EVIDENCE }));
    expect(expectOk(await orders.batch(assigned.id)).body.batch.status).toBe('completed');
    expect(expectOk(await carX.me()).body.courier).toMatchObject({ status: 'busy', job: { kind: 'order', id: elsewhere } });
    expect(expectOk(await orders.get(tooHeavy)).body.status).toBe('new'); // a car cannot carry it

    // Step 7: the batch is readable through GraphQL with its orders.
    const BATCH = `query ($id: ID!) { batch(id: $id) { __typename ... on QueryBatchSuccess { data { id status vehicleType courierId totalWeightKg orders { id batchId status } } } } }`;
    const viaGql = (await gql(t.url, BATCH, { key: m.testKey, variables: { id: pending.id } })).body.data.batch;
    expect(viaGql.data).toMatchObject({ id: pending.id, status: 'assigned', vehicleType: 'car', courierId: carY.id, totalWeightKg: pending.total_weight_kg });
    expect(viaGql.data.orders.map((o: Wire) => o.id).sort()).toEqual([...pending.order_ids].sort());
    expect(viaGql.data.orders.every((o: Wire) => o.batchId === pending.id && o.status === 'assigned')).toBe(true);

    // Clean up what still holds couriers or sits in the queue.
    for (const id of [...pending.order_ids, tooHeavy, elsewhere]) expectOk(await orders.cancel(id));
    expect(expectOk(await orders.batch(pending.id)).body.batch.status).toBe('cancelled');
    expect(expectOk(await carY.me()).body.courier.status).toBe('available');
    for (const c of [carX, carY]) expectOk(await c.duty(false));
    expectOk(await moto.deliver(pickedUp, { driver_id: moto.id, coords: PLACES.lasCondes, ...EVIDENCE }));
    expectOk(await moto.duty(false));
  });

  it('fits the target vehicle: small orders for a bike (6 kg) make one batch, the rest keep their own dispatch', async () => {
    const fresh = await t.createMerchant({ name: 'Bike Batches', address: 'Av. Providencia 1234, Providencia' });
    const own = merchantApi(t, fresh.testKey);
    const ids: string[] = [];
    for (const kg of [2, 2, 2, 2]) ids.push(expectOk(await own.create(formB({ total_weight_kg: kg })), 201).body.booking_id);
    const res = expectOk(await own.consolidate({ geohash_zone: ZONE, target_car_type: 'bike' }));
    expect(res.body.batches_created).toBe(1);
    expect(res.body.batches[0]).toMatchObject({ vehicle_type: 'bike', total_weight_kg: 6, status: 'pending', courier_id: null });
    expect(res.body.batches[0].order_ids).toHaveLength(3);
    const single = ids.filter((id) => !res.body.batches[0].order_ids.includes(id));
    expect(single).toHaveLength(1);
    expect(expectOk(await own.get(single[0]!)).body.batch_id).toBeNull();
    // Nothing left to consolidate: the lone order cannot form a batch.
    expect(expectOk(await own.consolidate({ geohash_zone: ZONE, target_car_type: 'bike' })).body).toMatchObject({ batches_created: 0, batch_ids: [] });
    for (const id of ids) expectOk(await own.cancel(id));
  });

  it('target_car_type defaults to car; a zone without orders creates nothing', async () => {
    const fresh = await t.createMerchant({ name: 'Defaults' });
    const own = merchantApi(t, fresh.testKey);
    expect(expectOk(await own.consolidate({ geohash_zone: '66jc9' })).body).toEqual({ success: true, batches_created: 0, batch_ids: [], batches: [] });
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) ids.push(expectOk(await own.create(formB({ total_weight_kg: 2 })), 201).body.booking_id);
    for (const id of ids) expect(expectOk(await own.get(id)).body.vehicle_type).toBe('bike'); // priced on its own: a bike
    const res = expectOk(await own.consolidate({ geohash_zone: ZONE }));
    expect(res.body.batches).toEqual([expect.objectContaining({ vehicle_type: 'car', total_weight_kg: 4 })]);

    // Batched into a car, the orders show the batch's vehicle: REST details and list, GraphQL order and batch.
    for (const id of ids) expect(expectOk(await own.get(id)).body).toMatchObject({ batch_id: res.body.batches[0].id, vehicle_type: 'car' });
    expect((expectOk(await own.list()).body.orders as Wire[]).map((o) => o.vehicle_type)).toEqual(['car', 'car']);
    const ORDER = `query ($id: String!) { order(id: $id) { ... on QueryOrderSuccess { data { vehicleType } } } }`;
    for (const id of ids) expect((await gql(t.url, ORDER, { key: fresh.testKey, variables: { id } })).body.data.order.data.vehicleType).toBe('car');
    const BATCH = `query ($id: ID!) { batch(id: $id) { ... on QueryBatchSuccess { data { orders { vehicleType } } } } }`;
    const batched = (await gql(t.url, BATCH, { key: fresh.testKey, variables: { id: res.body.batches[0].id } })).body.data.batch.data.orders;
    expect(batched).toEqual([{ vehicleType: 'car' }, { vehicleType: 'car' }]);
    for (const id of ids) expectOk(await own.cancel(id));
  });

  it('refuses a malformed zone or vehicle with 400 naming the field', async () => {
    for (const zone of ['', 'abc!', '66jca', '66jci', '66jcc66jcc66j', 42]) {
      const res = expectError(await orders.consolidate({ geohash_zone: zone }), 400, 'VALIDATION_ERROR');
      expect(res.body.error.fields.map((f: Wire) => f.field), String(zone)).toEqual(['geohash_zone']);
    }
    const badVehicle = expectError(await orders.consolidate({ geohash_zone: ZONE, target_car_type: 'truck' }), 400, 'VALIDATION_ERROR');
    expect(badVehicle.body.error.fields.map((f: Wire) => f.field)).toEqual(['target_car_type']);
    expectError(await orders.consolidate({}), 400, 'VALIDATION_ERROR');
    expectError(await orders.consolidate({ geohash_zone: ZONE, merchant_id: 'm_other' }), 400, 'VALIDATION_ERROR');
  });

  it('GraphQL consolidateOrders returns the batches, and a typed error for a bad zone', async () => {
    const fresh = await t.createMerchant({ name: 'GQL Batches' });
    const own = merchantApi(t, fresh.testKey);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(expectOk(await own.create(formB({ total_weight_kg: 1 })), 201).body.booking_id);
    const CONSOLIDATE = `mutation ($zone: String!, $car: Vehicle) { consolidateOrders(geohashZone: $zone, targetCarType: $car) {
      __typename
      ... on MutationConsolidateOrdersSuccess { data { batchesCreated batches { id status vehicleType orders { id batchId } } } }
      ... on AppError { code fields { field } } } }`;
    const ok = (await gql(t.url, CONSOLIDATE, { key: fresh.testKey, variables: { zone: ZONE, car: 'motorcycle' } })).body.data.consolidateOrders;
    expect(ok.__typename).toBe('MutationConsolidateOrdersSuccess');
    expect(ok.data.batchesCreated).toBe(1);
    expect(ok.data.batches[0]).toMatchObject({ status: 'pending', vehicleType: 'motorcycle' });
    expect(ok.data.batches[0].orders.map((o: Wire) => o.id).sort()).toEqual([...ids].sort());
    expect(expectOk(await own.batch(ok.data.batches[0].id)).body.batch.order_ids.sort()).toEqual([...ids].sort());

    const bad = (await gql(t.url, CONSOLIDATE, { key: fresh.testKey, variables: { zone: 'not a zone' } })).body;
    expect(bad.errors).toBeUndefined();
    // Field errors name the GraphQL argument, not REST's snake_case field.
    expect(bad.data.consolidateOrders).toEqual({ __typename: 'AppError', code: 'VALIDATION_ERROR', fields: [{ field: 'geohashZone' }] });
    for (const id of ids) expectOk(await own.cancel(id));
  });
});
