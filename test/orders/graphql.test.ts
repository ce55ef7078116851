import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/ports/clock.js';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { EVIDENCE, PLACES, createCourier, expectError, expectOk, merchantApi, north, startOrdersApp, type CourierClient } from './support.js';

type Wire = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

const ERR = '... on AppError { code message fields { field message } }';
/** The geofence refusal of a delivery: its own type, with the measurements as fields. */
const GEOFENCE_ERR = '... on GeofenceError { code message distanceM radiusM }';
const ORDER_FIELDS = `id orderNumber trackingNumber trackingUrl referenceId isTest status customerName customerPhone customerRut isRegisteredUser
  paymentMode notes weightKg vehicleType price currency prepTimeMins estimatedPickupTime estimatedDeliveryTime batchId cancellationReason
  pickup { address lat lng geohash } dropoff { address lat lng }
  driver { id name phone vehiclePlate vehicleType currentLocation { lat lng } }
  proof { driverId distanceM radiusM bypass photoUrl signatureUrl deliveredAt coords { lat lng } }
  events { sequence from status actorKind actorId reason location { lat lng } }
  createdAt`;

const CREATE = `mutation ($input: CreateOrderInput!, $key: String) { createOrder(input: $input, idempotencyKey: $key) {
  __typename ... on MutationCreateOrderSuccess { data { ${ORDER_FIELDS} } } ${ERR} } }`;
const ORDER = `query ($id: String!) { order(id: $id) { __typename ... on QueryOrderSuccess { data { ${ORDER_FIELDS} } } ${ERR} } }`;
const ORDERS = `query ($first: Int, $after: String, $status: [OrderStatus!], $from: DateTime, $to: DateTime) {
  orders(first: $first, after: $after, status: $status, createdFrom: $from, createdTo: $to) {
    __typename ... on QueryOrdersSuccess { data { nodes { id status createdAt } edges { cursor node { id } } pageInfo { hasNextPage endCursor } } } ${ERR} } }`;
const CANCEL = `mutation ($id: String!, $reason: String) { cancelOrder(id: $id, reason: $reason) {
  __typename ... on MutationCancelOrderSuccess { data { id status cancellationReason } } ${ERR} } }`;
const DELIVER = `mutation ($id: String!, $input: ConfirmDeliveryInput!) { confirmDelivery(id: $id, input: $input) {
  __typename ... on MutationConfirmDeliverySuccess { data { id status proof { driverId distanceM radiusM bypass photoUrl signatureUrl } } } ${ERR} ${GEOFENCE_ERR} } }`;
const DUTY = `mutation ($on: Boolean!) { courierSetDuty(onDuty: $on) { __typename ... on MutationCourierSetDutySuccess { data { id status isTest } } ${ERR} } }`;
const POSITION = `mutation ($input: PositionInput!) { courierReportPosition(input: $input) {
  __typename ... on MutationCourierReportPositionSuccess { data { id status } } ${ERR} } }`;
const ADVANCE = `mutation ($id: ID!, $status: CourierOrderStatus!) { courierAdvanceOrder(id: $id, status: $status) {
  __typename ... on MutationCourierAdvanceOrderSuccess { data { id status } } ${ERR} } }`;
const RELEASE = `mutation ($id: ID!, $reason: String) { courierReleaseOrder(id: $id, reason: $reason) {
  __typename ... on MutationCourierReleaseOrderSuccess { data { id status driver { id } } } ${ERR} } }`;
const COURIER_DELIVER = `mutation ($id: ID!, $coords: LatLngInput!, $photo: String!, $signature: String!, $bypass: Boolean) {
  courierConfirmDelivery(id: $id, coords: $coords, photoUrl: $photo, signatureUrl: $signature, bypass: $bypass) {
    __typename ... on MutationCourierConfirmDeliverySuccess { data { id status proof { driverId bypass } } } ${ERR} ${GEOFENCE_ERR} } }`;
const COURIER = `{ courier { id status isTest location { lat lng } driver { id vehiclePlate } activeOrders { id status } } }`;

/** Form A as GraphQL input: exact coordinates, a reference id. */
const orderInput = (overrides: Record<string, unknown> = {}) => ({
  pickup: { address: 'Av. Providencia 1234', coords: PLACES.providencia },
  dropoff: { address: 'Av. Apoquindo 3000, Las Condes', coords: PLACES.lasCondes },
  customerName: 'Camila Rojas',
  customerPhone: '+56912345678',
  referenceId: `GQL-${Math.random().toString(36).slice(2, 10)}`,
  items: [{ name: 'Libro', quantity: 1, weightKg: 1 }],
  ...overrides,
});

describe('GraphQL orders and couriers', () => {
  // A clock the test moves, so the date filters have exact boundaries.
  let now = Date.parse('2025-06-02T10:00:00.000Z');
  const clock: Clock = { now: () => new Date(now) };
  let t: TestApp;
  let m: MerchantCredentials;
  const as = (key: string) => (query: string, variables: Record<string, unknown> = {}) => gql(t.url, query, { key, variables }).then((r) => {
    expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
    return r.body.data as Wire;
  });
  let merchant: ReturnType<typeof as>;

  beforeAll(async () => {
    t = await startOrdersApp({ clock });
    m = await t.createMerchant({ name: 'GraphQL Merchant' });
    merchant = as(m.testKey);
  });
  afterAll(() => t?.stop());

  it('createOrder returns the order; expected failures are typed AppError results, not GraphQL errors', async () => {
    const created = (await merchant(CREATE, { input: orderInput({ customerRut: '9.068.826-k', paymentMode: 'cash_on_delivery', codAmount: 9_990, prepTimeMins: 20, notes: 'Portón azul' }) })).createOrder;
    expect(created.__typename).toBe('MutationCreateOrderSuccess');
    expect(created.data).toMatchObject({
      status: 'new',
      isTest: true,
      customerRut: '9068826-K',
      isRegisteredUser: false,
      paymentMode: 'cash_on_delivery',
      prepTimeMins: 20,
      notes: 'Portón azul',
      weightKg: 1,
      vehicleType: 'bike',
      currency: 'CLP',
      driver: null,
      proof: null,
      pickup: { lat: PLACES.providencia.lat, lng: PLACES.providencia.lng, geohash: expect.stringMatching(/^66jcc/) },
      events: [{ sequence: 1, from: null, status: 'new', actorKind: 'merchant', actorId: m.merchantId }],
    });
    expect(created.data.trackingUrl).toContain(created.data.trackingNumber);
    // REST sees the same order.
    expect(expectOk(await merchantApi(t, m.testKey).get(created.data.id)).body).toMatchObject({ customer_rut: '9068826-K', order_notes: 'Portón azul' });

    const badPhone = (await merchant(CREATE, { input: orderInput({ customerPhone: '912345678' }) })).createOrder;
    expect(badPhone).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR', fields: [{ field: expect.stringMatching(/phone/i) }] });
    const badRut = (await merchant(CREATE, { input: orderInput({ customerRut: '12.345.678-9' }) })).createOrder;
    expect(badRut).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR', fields: [{ field: expect.stringMatching(/rut/i) }] });
    const nowhere = (await merchant(CREATE, { input: orderInput({ dropoff: { address: 'Calle Falsa 123, Springfield' } }) })).createOrder;
    expect(nowhere).toMatchObject({ __typename: 'AppError', code: 'GEOCODING_FAILED', fields: [{ field: 'dropoff' }] });
    // No pickup and no merchant address: reported under the input's own name, `pickup` (never `origin`).
    const bare = await t.app.container.services.admin.createMerchant({ input: { name: 'No Pickup Address' } });
    const { pickup: _none, ...withoutPickup } = orderInput();
    const noPickup = (await as(bare.testKey)(CREATE, { input: withoutPickup })).createOrder;
    expect(noPickup).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR', fields: [{ field: 'pickup' }] });

    const cancelled = (await merchant(CANCEL, { id: created.data.id, reason: 'Duplicado' })).cancelOrder;
    expect(cancelled).toEqual({ __typename: 'MutationCancelOrderSuccess', data: { id: created.data.id, status: 'cancelled', cancellationReason: 'Duplicado' } });
    expect((await merchant(CANCEL, { id: created.data.id })).cancelOrder).toMatchObject({ __typename: 'AppError', code: 'ORDER_NOT_CANCELLABLE' });
  });

  it('order resolves every identifier; an unknown one is ORDER_NOT_FOUND; the live key sees only live orders', async () => {
    const created = (await merchant(CREATE, { input: orderInput() })).createOrder.data;
    for (const ref of [created.id, created.referenceId, created.trackingNumber, created.orderNumber]) {
      expect((await merchant(ORDER, { id: ref })).order.data.id, ref).toBe(created.id);
    }
    expect((await merchant(ORDER, { id: 'bk_00000000000000000000000000' })).order).toMatchObject({ __typename: 'AppError', code: 'ORDER_NOT_FOUND' });
    expect((await as(m.liveKey)(ORDER, { id: created.id })).order).toMatchObject({ __typename: 'AppError', code: 'ORDER_NOT_FOUND' });
    expect((await merchant(CANCEL, { id: created.id })).cancelOrder.__typename).toBe('MutationCancelOrderSuccess');
  });

  it('orders: cursor pagination, status filter and date filter', async () => {
    const fresh = await t.createMerchant({ name: 'Paging' });
    const q = as(fresh.testKey);
    // Five orders one hour apart; the 2nd and 4th are cancelled.
    const ids: string[] = [];
    const times: string[] = [];
    for (let i = 0; i < 5; i++) {
      now += 3_600_000;
      const order = (await q(CREATE, { input: orderInput() })).createOrder.data;
      ids.push(order.id);
      times.push(order.createdAt);
    }
    for (const id of [ids[1], ids[3]]) expect((await q(CANCEL, { id })).cancelOrder.__typename).toBe('MutationCancelOrderSuccess');
    const newestFirst = [...ids].reverse();

    // Pages of two, newest first, following endCursor until hasNextPage is false.
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 5; page++) {
      const data: Wire = (await q(ORDERS, { first: 2, ...(after && { after }) })).orders.data;
      expect(data.edges.map((e: Wire) => e.node.id)).toEqual(data.nodes.map((n: Wire) => n.id));
      expect(data.edges.map((e: Wire) => e.cursor)).toEqual(data.nodes.map((n: Wire) => n.id));
      seen.push(...data.nodes.map((n: Wire) => n.id));
      if (!data.pageInfo.hasNextPage) {
        expect(data.pageInfo.endCursor).toBeNull();
        break;
      }
      after = data.pageInfo.endCursor;
    }
    expect(seen).toEqual(newestFirst);

    const byStatus = async (status: string[]) => (await q(ORDERS, { status })).orders.data.nodes.map((n: Wire) => n.id);
    expect(await byStatus(['cancelled'])).toEqual([ids[3], ids[1]]);
    expect(await byStatus(['new'])).toEqual([ids[4], ids[2], ids[0]]);
    expect(await byStatus(['new', 'cancelled'])).toEqual(newestFirst);
    expect(await byStatus(['completed'])).toEqual([]);

    // createdFrom is inclusive, createdTo exclusive.
    const between = async (from?: string, to?: string) =>
      (await q(ORDERS, { ...(from && { from }), ...(to && { to }) })).orders.data.nodes.map((n: Wire) => n.id);
    expect(await between(times[1], times[3])).toEqual([ids[2], ids[1]]);
    expect(await between(times[3])).toEqual([ids[4], ids[3]]);
    expect(await between(undefined, times[1])).toEqual([ids[0]]);
    expect(await between(new Date(now + 60_000).toISOString())).toEqual([]);
    // Filters combine.
    expect((await q(ORDERS, { status: ['new'], from: times[1] })).orders.data.nodes.map((n: Wire) => n.id)).toEqual([ids[4], ids[2]]);

    // A page size out of range is a typed validation error.
    expect((await q(ORDERS, { first: 500 })).orders).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR' });
    for (const id of [ids[0], ids[2], ids[4]]) await q(CANCEL, { id });
  });

  it('a fix with its recorded time (GraphQL recordedAt, REST recorded_at): an older one than the stored fix is not stored; out of range is a validation error', async () => {
    const courier = await createCourier(t, { mode: 'test', name: 'Backlog Rider' });
    const rider = as(courier.token);
    const ago = (s: number) => new Date(now - s * 1000).toISOString();
    const [newer, older] = [north(PLACES.providencia, 100), north(PLACES.providencia, 900)];
    expect((await rider(POSITION, { input: { ...newer, recordedAt: ago(10) } })).courierReportPosition.data).toEqual([]);
    expectOk(await api(`${t.url}/api/v1/couriers/me/location`, { headers: { authorization: `Bearer ${courier.token}` }, body: { ...older, recorded_at: ago(30) } }));
    expect((await rider(POSITION, { input: { ...older, recordedAt: ago(20) } })).courierReportPosition.data).toEqual([]);
    const me = expectOk(await courier.me()).body.courier;
    expect([me.location, me.location_at]).toEqual([newer, ago(10)]);
    expect((await rider(POSITION, { input: { ...older, recordedAt: ago(2 * 86_400) } })).courierReportPosition).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR', fields: [{ field: 'recordedAt' }] });
    expectError(await api(`${t.url}/api/v1/couriers/me/location`, { headers: { authorization: `Bearer ${courier.token}` }, body: { ...older, recorded_at: new Date(now + 300_000).toISOString() } }), 400, 'VALIDATION_ERROR');
  });

  it('the courier drives an order end to end through its mutations; the merchant confirms the delivery', async () => {
    const courier: CourierClient = await createCourier(t, { mode: 'test', vehicle: 'motorcycle', name: 'GraphQL Rider' });
    const rider = as(courier.token);

    // Step 1: on duty, with a position near the pickup.
    expect((await rider(DUTY, { on: true })).courierSetDuty).toEqual({ __typename: 'MutationCourierSetDutySuccess', data: { id: courier.id, status: 'available', isTest: true } });
    expect((await rider(POSITION, { input: { ...north(PLACES.providencia, 400), speedKmh: 20, heading: 180 } })).courierReportPosition.data).toEqual([]);

    // Step 2: an order is created and assigned to it.
    const created = (await merchant(CREATE, { input: orderInput() })).createOrder.data;
    expect(created.status).toBe('assigned');
    expect(created.driver).toMatchObject({ id: courier.id, name: 'GraphQL Rider', vehicleType: 'motorcycle', currentLocation: north(PLACES.providencia, 400) });
    const me = (await rider(COURIER)).courier;
    expect(me).toMatchObject({ id: courier.id, status: 'busy', isTest: true, driver: { id: courier.id }, activeOrders: [{ id: created.id, status: 'assigned' }] });

    // Step 3: arrival by position, then the moves; a forbidden move is a typed error.
    const arrivals = (await rider(POSITION, { input: north(PLACES.providencia, 20) })).courierReportPosition.data;
    expect(arrivals).toEqual([{ id: created.id, status: 'arrived_pickup' }]);
    expect((await rider(ADVANCE, { id: created.id, status: 'arrived_dropoff' })).courierAdvanceOrder).toMatchObject({
      __typename: 'AppError',
      code: 'INVALID_STATUS_TRANSITION',
    });
    expect((await rider(RELEASE, { id: created.id })).courierReleaseOrder).toMatchObject({ __typename: 'AppError', code: 'INVALID_STATUS_TRANSITION' });
    expect((await rider(ADVANCE, { id: created.id, status: 'picked_up' })).courierAdvanceOrder.data).toEqual({ id: created.id, status: 'picked_up' });
    expect((await rider(POSITION, { input: { lat: 91, lng: 0 } })).courierReportPosition).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR' });

    // Step 4: the merchant confirms: wrong driver and geofence failures are typed; then it passes.
    const deliver = (input: Record<string, unknown>) =>
      merchant(DELIVER, { id: created.id, input: { driverId: courier.id, coords: PLACES.lasCondes, photoUrl: EVIDENCE.photo_url, signatureUrl: EVIDENCE.signature_url, ...input } });
    expect((await deliver({ driverId: 'cr_someone_else' })).confirmDelivery).toMatchObject({ __typename: 'AppError', code: 'FORBIDDEN' });
    const far = (await deliver({ coords: north(PLACES.lasCondes, 300) })).confirmDelivery;
    expect(far).toMatchObject({ __typename: 'GeofenceError', code: 'GEOFENCE_FAILED', message: expect.stringContaining('300'), radiusM: 20 });
    expect(far.distanceM).toBeCloseTo(300, 0);
    const wider = (await deliver({ coords: north(PLACES.lasCondes, 300), geofenceRadius: 150 })).confirmDelivery;
    expect(wider).toMatchObject({ __typename: 'GeofenceError', radiusM: 150 });
    const missing = (await deliver({ photoUrl: 'not a url' })).confirmDelivery;
    expect(missing).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR', fields: [{ field: expect.stringMatching(/photo/i) }] });
    const done = (await deliver({ coords: north(PLACES.lasCondes, 4), geofenceRadius: 10 })).confirmDelivery;
    expect(done.__typename).toBe('MutationConfirmDeliverySuccess');
    expect(done.data).toMatchObject({ id: created.id, status: 'completed', proof: { driverId: courier.id, radiusM: 10, bypass: false, ...{ photoUrl: EVIDENCE.photo_url } } });
    expect(done.data.proof.distanceM).toBeCloseTo(4, 0);

    // Step 5: the history, through the order's events field.
    const order = (await merchant(ORDER, { id: created.id })).order.data;
    expect(order.events.map((e: Wire) => [e.sequence, e.status, e.actorKind])).toEqual([
      [1, 'new', 'merchant'],
      [2, 'assigned', 'system'],
      [3, 'arrived_pickup', 'courier'],
      [4, 'picked_up', 'courier'],
      [5, 'arrived_dropoff', 'merchant'],
      [6, 'completed', 'merchant'],
    ]);
    expect((await rider(COURIER)).courier).toMatchObject({ status: 'available', activeOrders: [] });

    // Step 6: a second order, released by the courier (back to the queue), then delivered by the courier itself.
    const second = (await merchant(CREATE, { input: orderInput() })).createOrder.data;
    expect(second.driver.id).toBe(courier.id);
    expect((await rider(RELEASE, { id: second.id, reason: 'Pinchazo' })).courierReleaseOrder.data).toEqual({ id: second.id, status: 'new', driver: null });
    expect((await rider(DUTY, { on: false })).courierSetDuty.data.status).toBe('off_duty');
    expect((await rider(DUTY, { on: true })).courierSetDuty.data.status).toBe('busy'); // coming back on duty takes the queued order
    expect((await rider(ADVANCE, { id: second.id, status: 'picked_up' })).courierAdvanceOrder.data.status).toBe('picked_up');
    const refused = (await rider(COURIER_DELIVER, { id: second.id, coords: north(PLACES.lasCondes, 900), photo: EVIDENCE.photo_url, signature: EVIDENCE.signature_url }))
      .courierConfirmDelivery;
    expect(refused).toMatchObject({ __typename: 'GeofenceError', code: 'GEOFENCE_FAILED', radiusM: 20 });
    expect(refused.distanceM).toBeCloseTo(900, 0);
    const own = (await rider(COURIER_DELIVER, { id: second.id, coords: north(PLACES.lasCondes, 900), photo: EVIDENCE.photo_url, signature: EVIDENCE.signature_url, bypass: true }))
      .courierConfirmDelivery;
    expect(own).toEqual({ __typename: 'MutationCourierConfirmDeliverySuccess', data: { id: second.id, status: 'completed', proof: { driverId: courier.id, bypass: true } } });
    expect((await rider(DUTY, { on: false })).courierSetDuty.data.status).toBe('off_duty');
  });

  it('consolidateOrders answers typed results', async () => {
    const bad = (await merchant(`mutation { consolidateOrders(geohashZone: "not-a-zone") { __typename ${ERR} } }`)).consolidateOrders;
    expect(bad).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR' });
    const none = (await merchant(`mutation { consolidateOrders(geohashZone: "66jc9", targetCarType: van) {
      __typename ... on MutationConsolidateOrdersSuccess { data { batchesCreated batches { id } } } } }`)).consolidateOrders;
    expect(none).toEqual({ __typename: 'MutationConsolidateOrdersSuccess', data: { batchesCreated: 0, batches: [] } });
  });

  it('courier mutations need a courier token, merchant fields a merchant key', async () => {
    const res = await gql(t.url, DUTY, { key: m.testKey, variables: { on: true } });
    expect(res.body.errors?.[0]).toBeDefined();
    expect(res.body.data?.courierSetDuty ?? null).toBeNull();
    const courier = await createCourier(t, { mode: 'test' });
    const asCourier = await gql(t.url, ORDER, { key: courier.token, variables: { id: 'anything' } });
    expect(asCourier.body.errors?.[0]).toBeDefined();
  });
});
