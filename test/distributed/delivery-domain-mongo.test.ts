/**
 * The delivery domain (issue #30) on the distributed store: one app process on MongoDB (jongodb, or
 * MONGODB_URL) and a redis-server, through REST and GraphQL, as named steps — parcel sizes and the
 * vehicle they need, the cancellation preview and its fee, the ID check at the door, a failed
 * attempt and the return leg. test/orders/* holds every rule on SQLite; this proves the MongoDB
 * adapter carries each one end to end in a real process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANTIAGO_TARIFF } from '../../src/domain/tariffs.js';
import { api, gql } from '../helpers/app.js';
import type { ServerProcess } from '../helpers/process.js';
import { EVIDENCE } from '../orders/support.js';
import { courierOn, expectStatus, MONGO_SKIP_REASON, PLACES, startCluster, until, type Cluster } from './support.js';

type Wire = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

const { assigned_fee: ASSIGNED_FEE, at_pickup_fee: AT_PICKUP_FEE } = DEFAULT_SANTIAGO_TARIFF.cancellation;
const ADULT = { document_number: '15.432.987-0', date_of_birth: '1990-05-04' };
const CHILD_BIRTH = `${new Date().getUTCFullYear() - 10}-01-01`;
/** 60 × 40 × 40 cm = 96 L: light, but too big for the motorcycle's top box (a car). */
const BOX = { length_cm: 60, width_cm: 40, height_cm: 40 };
const ERR = '... on AppError { code message }';
const ORDER = `query ($id: String!) { order(id: $id) { __typename ... on QueryOrderSuccess { data {
  id status vehicleType price dimensions { lengthCm widthCm heightCm } idCheck { minAge } failedAttemptPolicy
  cancellationPreview { cancellable fee } proof { idCheck { verified documentLast4 } }
  failedAttempts { reason outcome } returnProof { geofence } } } ${ERR} } }`;
const CREATE = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) {
  __typename ... on MutationCreateOrderSuccess { data { id vehicleType price dimensions { lengthCm } } } ${ERR} ... on ParcelCapacityError { code maxLengthCm } } }`;
const REPORT = `mutation ($id: ID!, $coords: LatLngInput!) { courierReportFailedAttempt(id: $id, reason: refused, coords: $coords) {
  __typename ... on MutationCourierReportFailedAttemptSuccess { data { id status } } ${ERR} } }`;

describe.skipIf(MONGO_SKIP_REASON)(`the delivery domain on MongoDB and redis-server, REST and GraphQL${MONGO_SKIP_REASON ? ` (${MONGO_SKIP_REASON})` : ''}`, () => {
  let cluster: Cluster;
  let node: ServerProcess;

  beforeAll(async () => {
    cluster = await startCluster({ store: 'mongodb', nodes: 1, couriers: 1, env: { DISPATCH_RECONCILE_MS: '500' } });
    node = cluster.nodes[0]!;
  }, 120_000);
  afterAll(() => cluster?.stop());

  const shop = (path: string, body?: unknown) => api(`${node.url}/api/v1${path}`, { key: cluster.shop.testKey, ...(body !== undefined && { body }) });
  const graph = async (query: string, variables: Record<string, unknown>, key = cluster.shop.testKey) => {
    const res = expectStatus(await gql(node.url, query, { key, variables }), 200).body as { data: Record<string, Wire> | null; errors?: unknown };
    if (!res.data) throw new Error(`GraphQL errors: ${JSON.stringify(res.errors)}`);
    return Object.values(res.data)[0]!;
  };
  const readOrder = async (id: string) => (await graph(ORDER, { id })).data as Wire;
  const courier = () => {
    const seeded = cluster.couriers[0]!;
    const call = (path: string, body?: unknown) => api(`${node.url}/api/v1/couriers/me${path}`, { key: seeded.token, ...(body !== undefined && { body }) });
    return { ...courierOn(node, seeded), seeded, call };
  };
  const form = (extra: Record<string, unknown> = {}) => ({
    pickup: { address: 'Av. Providencia 1234', coords: PLACES.providencia },
    dropoff: { address: 'Av. Apoquindo 3000, Las Condes', coords: PLACES.lasCondes },
    customer_name: 'Camila Rojas',
    customer_phone: '+56912345678',
    total_weight_kg: 1.5,
    ...extra,
  });
  /** An order given to the (only) courier, who stands at the pickup. */
  async function assigned(extra: Record<string, unknown> = {}): Promise<string> {
    const c = courier();
    expectStatus(await c.duty(true), 200);
    expectStatus(await c.position(PLACES.providencia), 200);
    const id = expectStatus(await shop('/orders', form(extra)), 201).body.booking_id as string;
    await until(async () => (await shop(`/orders/${id}`)).body.status === 'assigned', `order ${id} to be assigned`, 15_000, 200);
    return id;
  }

  it('step 1 (sizes): a box the motorcycle cannot carry is quoted and booked on a car at one price, by REST and GraphQL; a parcel nothing carries is 422 at both doors', async () => {
    const quote = expectStatus(await shop('/shipping/quote', { origin: { address: 'Av. Providencia 1234', coords: PLACES.providencia }, destination: { address: 'Av. Apoquindo 3000', coords: PLACES.lasCondes }, total_weight_kg: 1.5, dimensions: BOX }), 200).body;
    const rest = expectStatus(await shop('/orders', form({ items: [{ name: 'Lámpara', quantity: 1, weight_kg: 1.5, ...BOX }] })), 201).body;
    expect(expectStatus(await shop(`/orders/${rest.booking_id}`), 200).body).toMatchObject({ vehicle_type: 'car', price: quote.price });
    const viaGraph = await graph(CREATE, {
      input: { pickup: { address: 'Av. Providencia 1234', coords: PLACES.providencia }, dropoff: { address: 'Av. Apoquindo 3000', coords: PLACES.lasCondes }, customerName: 'Camila Rojas', customerPhone: '+56912345678', totalWeightKg: 1.5, dimensions: { lengthCm: 60, widthCm: 40, heightCm: 40 } },
    });
    expect(viaGraph).toMatchObject({ __typename: 'MutationCreateOrderSuccess', data: { vehicleType: 'car', price: quote.price, dimensions: { lengthCm: 60 } } });
    expect(await readOrder(viaGraph.data.id)).toMatchObject({ dimensions: { lengthCm: 60, widthCm: 40, heightCm: 40 }, vehicleType: 'car' });

    const tooLong = expectStatus(await shop('/orders', form({ dimensions: { length_cm: 400, width_cm: 10, height_cm: 10 } })), 422).body;
    expect(tooLong.error.code).toBe('PARCEL_EXCEEDS_CAPACITY');
    const tooLongGraph = await graph(CREATE, { input: { dropoff: { address: 'Av. Apoquindo 3000', coords: PLACES.lasCondes }, customerName: 'Camila Rojas', customerPhone: '+56912345678', dimensions: { lengthCm: 400, widthCm: 10, heightCm: 10 } } });
    expect(tooLongGraph).toMatchObject({ __typename: 'ParcelCapacityError', code: 'PARCEL_EXCEEDS_CAPACITY', maxLengthCm: expect.any(Number) });
    for (const id of [rest.booking_id, viaGraph.data.id]) expectStatus(await shop(`/orders/${id}/cancel`, {}), 200);
  });

  it('step 2 (cancellation): the preview follows the courier (REST and GraphQL agree), the cancel keeps the fee it announced', async () => {
    const id = await assigned();
    expect(expectStatus(await shop(`/orders/${id}/cancellation`), 200).body).toMatchObject({ cancellable: true, fee: ASSIGNED_FEE, status: 'assigned' });
    expect((await readOrder(id)).cancellationPreview).toEqual({ cancellable: true, fee: ASSIGNED_FEE });
    expectStatus(await courier().status(id, 'arrived_pickup'), 200);
    expect((await readOrder(id)).cancellationPreview).toEqual({ cancellable: true, fee: AT_PICKUP_FEE });
    expect(expectStatus(await shop(`/orders/${id}/cancel`, { reason: 'cliente desistió' }), 200).body).toMatchObject({ status: 'cancelled', cancellation_fee: AT_PICKUP_FEE });
    expect(expectStatus(await shop(`/orders/${id}`), 200).body.cancellation_fee).toBe(AT_PICKUP_FEE);
  });

  it('step 3 (ID check): refused without the check and for a minor, delivered with it; the proof keeps the last four digits only', async () => {
    const id = await assigned({ id_check: { required: true, min_age: 21 } });
    const c = courier();
    for (const status of ['arrived_pickup', 'picked_up', 'arrived_dropoff']) expectStatus(await c.status(id, status), 200);
    const body = { driver_id: c.seeded.id, coords: PLACES.lasCondes, ...EVIDENCE };
    expect(expectStatus(await c.call(`/orders/${id}/deliver`, body), 422).body.error.code).toBe('ID_CHECK_REQUIRED');
    expect(expectStatus(await c.call(`/orders/${id}/deliver`, { ...body, id_check: { ...ADULT, date_of_birth: CHILD_BIRTH } }), 422).body.error.code).toBe('ID_CHECK_FAILED');
    expectStatus(await c.call(`/orders/${id}/deliver`, { ...body, id_check: ADULT }), 200);
    const details = expectStatus(await shop(`/orders/${id}`), 200).body;
    expect(details.proof.id_check).toMatchObject({ verified: true, min_age: 21, document_last4: '9870' });
    expect(JSON.stringify(details)).not.toContain('15432987');
    expect(await readOrder(id)).toMatchObject({ status: 'completed', idCheck: { minAge: 21 }, proof: { idCheck: { verified: true, documentLast4: '9870' } } });
  });

  it('step 4 (failed attempt): reported through GraphQL, the parcel goes back to the pickup and is proven there (REST); both doors show the attempt and the return', async () => {
    const id = await assigned({ failed_attempt_policy: 'return' });
    const c = courier();
    for (const status of ['arrived_pickup', 'picked_up', 'arrived_dropoff']) expectStatus(await c.status(id, status), 200);
    expect(await graph(REPORT, { id, coords: PLACES.lasCondes }, c.seeded.token)).toMatchObject({ data: { id, status: 'returning' } });
    expect(expectStatus(await c.call(`/orders/${id}/deliver`, { driver_id: c.seeded.id, coords: PLACES.lasCondes, ...EVIDENCE }), 409).body.error.code).toBe('INVALID_STATUS_TRANSITION');
    expectStatus(await c.call(`/orders/${id}/return`, { coords: PLACES.providencia, ...EVIDENCE }), 200);
    const history = (expectStatus(await shop(`/orders/${id}/events`), 200).body.events as Wire[]).map((e) => e.status);
    expect(history).toEqual(['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'delivery_failed', 'returning', 'returned']);
    expect(expectStatus(await shop(`/orders/${id}`), 200).body).toMatchObject({ status: 'returned', failed_attempts: [{ reason: 'refused', outcome: 'returning' }], return_proof: { geofence: 'passed' } });
    expect(await readOrder(id)).toMatchObject({ failedAttemptPolicy: 'return', failedAttempts: [{ reason: 'refused', outcome: 'returning' }], returnProof: { geofence: 'passed' } });
  });
});
