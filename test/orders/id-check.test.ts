import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { flatPayloadSchema, eventPayloadSchema } from '../../rest/openapi/responses-webhooks.js';
import { courierOrdersResponseSchema, deliveryConfirmedResponseSchema, orderDetailsResponseSchema } from '../../rest/openapi/responses-orders.js';
import { createLogger } from '../../src/logger.js';
import { memoryStream } from '../helpers/memory-log.js';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { FAST_WEBHOOKS, startReceiver, waitFor, webhooksApi, type Receiver } from '../webhooks/support.js';
import { EVIDENCE, PLACES, courierOnDuty, expectError, expectOk, expectWireShape, formA, formB, merchantApi, north, standDown, startOrdersApp, type CourierClient } from './support.js';

type Wire = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

const ADULT = { document_number: '15.432.987-0', date_of_birth: '1990-05-04' };
/** Ten years old today, whatever today is. */
const CHILD_BIRTH = `${new Date().getUTCFullYear() - 10}-01-01`;
const ERR = '... on AppError { code message fields { field message } }';
const ORDER_FIELDS = 'id status idCheck { required minAge } proof { idCheck { verified minAge documentLast4 checkedAt } }';

describe('ID check at the door (issue #30 item 7)', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let receiver: Receiver;
  let courier: CourierClient;
  const logs = memoryStream();

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startOrdersApp({ env: FAST_WEBHOOKS, logger: createLogger({ level: 'debug', destination: logs.stream }) });
    m = await t.createMerchant({ name: 'ID Check Merchant' });
    const hooks = webhooksApi(t.url, m.testKey);
    expectOk(await hooks.create({ url: `${receiver.url}/event`, payload_shape: 'event', events: ['order.status_changed'] }), 201);
    expectOk(await hooks.create({ url: `${receiver.url}/flat`, payload_shape: 'flat', events: ['order.status_changed'] }), 201);
  });
  afterAll(async () => {
    await t?.stop();
    await receiver?.close();
  });
  afterEach(() => standDown(courier));

  const orders = () => merchantApi(t, m.testKey);
  const at = north(PLACES.lasCondes, 5);

  async function orderAtDropoff(body: Record<string, unknown>): Promise<string> {
    courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 300) });
    const created = expectOk(await orders().create(body), 201).body;
    expect(created.status).toBe('assigned');
    expectOk(await courier.status(created.booking_id, 'picked_up'));
    expectOk(await courier.status(created.booking_id, 'arrived_dropoff'));
    return created.booking_id as string;
  }

  it('REST: the flag on both forms, shown to merchant and courier; delivery refused without a passed check; the proof and both webhooks carry it', async () => {
    const b = expectOk(await orders().create(formB({ id_check: { required: true } })), 201).body;
    expect(expectOk(await orders().get(b.booking_id)).body.id_check).toEqual({ required: true, min_age: 18 });
    expectOk(await orders().cancel(b.booking_id));
    expectError(await orders().create(formA({ id_check: { required: true, min_age: 17 } })), 400, 'VALIDATION_ERROR');
    expectError(await orders().create(formA({ id_check: { required: false } })), 400, 'VALIDATION_ERROR');

    const id = await orderAtDropoff(formA({ id_check: { required: true, min_age: 21 } }));
    const details = expectOk(await orders().get(id)).body;
    expectWireShape(orderDetailsResponseSchema, details);
    expect(details.id_check).toEqual({ required: true, min_age: 21 });
    const job = expectOk(await courier.orders()).body;
    expectWireShape(courierOrdersResponseSchema, job);
    expect(job.orders.find((o: Wire) => o.booking_id === id).id_check).toEqual({ required: true, min_age: 21 });

    const body = { driver_id: courier.id, coords: at, ...EVIDENCE };
    const missing = expectError(await courier.deliver(id, body), 422, 'ID_CHECK_REQUIRED');
    expect(missing.body.error.fields).toEqual([{ field: 'id_check', message: expect.any(String) }]);
    expectError(await orders().deliver(id, body), 422, 'ID_CHECK_REQUIRED');
    expectError(await courier.deliver(id, { ...body, id_check: { ...ADULT, document_number: '15.432.987-5' } }), 422, 'ID_DOCUMENT_INVALID');
    const young = expectError(await courier.deliver(id, { ...body, id_check: { ...ADULT, date_of_birth: CHILD_BIRTH } }), 422, 'ID_CHECK_FAILED');
    expect(young.body.error.details).toEqual({ min_age: 21 });
    expectError(await courier.deliver(id, { ...body, id_check: { ...ADULT, date_of_birth: '04/05/1990' } }), 400, 'VALIDATION_ERROR');
    expect(expectOk(await orders().get(id)).body.status).toBe('arrived_dropoff');

    const done = expectOk(await courier.deliver(id, { ...body, id_check: ADULT })).body;
    expectWireShape(deliveryConfirmedResponseSchema, done);
    const idCheck = { verified: true, min_age: 21, document_last4: '9870', checked_at: expect.any(String) };
    expect(done.proof.id_check).toEqual(idCheck);
    const after = expectOk(await orders().get(id)).body;
    expect(after.proof.id_check).toEqual(idCheck);
    expect(JSON.stringify(after)).not.toMatch(/15\.?432\.?98/);

    const completions = await waitFor(() => {
      const mine = receiver.receipts.filter((r) => r.body.includes(id) && /"(completed|delivered)"/.test(r.body));
      return mine.length >= 2 && mine;
    }, { what: 'the completion webhooks (both shapes)' });
    for (const receipt of completions) {
      const payload = JSON.parse(receipt.body) as Wire;
      expectWireShape('event' in payload ? eventPayloadSchema : flatPayloadSchema, payload);
      expect(payload.proof.id_check).toEqual(idCheck);
      expect(receipt.body).not.toMatch(/15\.?432\.?98/);
    }
    expect(logs.text().length).toBeGreaterThan(0);
    expect(logs.text()).not.toMatch(/15\.?432\.?98|1990-05-04/);
  });

  it('an order without the flag is delivered as before, its proof without id_check', async () => {
    const id = await orderAtDropoff(formA());
    expect(expectOk(await orders().get(id)).body.id_check).toBeNull();
    const done = expectOk(await orders().deliver(id, { driver_id: courier.id, coords: at, ...EVIDENCE })).body;
    expect(done.proof).not.toHaveProperty('id_check');
  });

  it('GraphQL: createOrder idCheck, courier and merchant deliveries refused with typed errors, courierConfirmDelivery records the check', async () => {
    courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 300) });
    const g = (query: string, variables: Record<string, unknown>, key = m.testKey) => gql(t.url, query, { key, variables }).then((r) => {
      expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
      return r.body.data as Wire;
    });
    const input = {
      pickup: { address: 'Av. Providencia 1234', coords: PLACES.providencia }, dropoff: { address: 'Apoquindo', coords: PLACES.lasCondes },
      customerName: 'Camila Rojas', customerPhone: '+56912345678', idCheck: { required: true, minAge: 18 },
    };
    const create = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { __typename ... on MutationCreateOrderSuccess { data { ${ORDER_FIELDS} } } ${ERR} } }`;
    const created = (await g(create, { input })).createOrder.data;
    expect(created).toMatchObject({ status: 'assigned', idCheck: { required: true, minAge: 18 }, proof: null });
    const seen = (await g(`{ courier { activeOrders { id idCheck { required minAge } } } }`, {}, courier.token)).courier.activeOrders;
    expect(seen).toEqual([{ id: created.id, idCheck: { required: true, minAge: 18 } }]);
    expectOk(await courier.status(created.id, 'picked_up'));
    expectOk(await courier.status(created.id, 'arrived_dropoff'));

    const merchantDeliver = `mutation ($id: String!, $input: ConfirmDeliveryInput!) { confirmDelivery(id: $id, input: $input) {
      __typename ... on MutationConfirmDeliverySuccess { data { id status } } ${ERR} } }`;
    const deliveryInput = { driverId: courier.id, coords: at, photoUrl: EVIDENCE.photo_url, signatureUrl: EVIDENCE.signature_url };
    expect((await g(merchantDeliver, { id: created.id, input: deliveryInput })).confirmDelivery).toMatchObject({ __typename: 'AppError', code: 'ID_CHECK_REQUIRED' });

    const courierDeliver = `mutation ($id: ID!, $coords: LatLngInput!, $photo: String!, $signature: String!, $idCheck: IdCheckInput) {
      courierConfirmDelivery(id: $id, coords: $coords, photoUrl: $photo, signatureUrl: $signature, idCheck: $idCheck) {
        __typename ... on MutationCourierConfirmDeliverySuccess { data { ${ORDER_FIELDS} } } ${ERR} } }`;
    const variables = { id: created.id, coords: at, photo: EVIDENCE.photo_url, signature: EVIDENCE.signature_url };
    expect((await g(courierDeliver, variables, courier.token)).courierConfirmDelivery).toMatchObject({ __typename: 'AppError', code: 'ID_CHECK_REQUIRED' });
    const invalid = { documentNumber: '9.068.826-1', dateOfBirth: '1990-05-04' };
    expect((await g(courierDeliver, { ...variables, idCheck: invalid }, courier.token)).courierConfirmDelivery).toMatchObject({ __typename: 'AppError', code: 'ID_DOCUMENT_INVALID' });
    const young = { documentNumber: '9.068.826-K', dateOfBirth: CHILD_BIRTH };
    expect((await g(courierDeliver, { ...variables, idCheck: young }, courier.token)).courierConfirmDelivery).toMatchObject({ __typename: 'AppError', code: 'ID_CHECK_FAILED' });
    const done = (await g(courierDeliver, { ...variables, idCheck: { ...young, dateOfBirth: '1990-05-04' } }, courier.token)).courierConfirmDelivery;
    expect(done).toMatchObject({
      __typename: 'MutationCourierConfirmDeliverySuccess',
      data: { id: created.id, status: 'completed', proof: { idCheck: { verified: true, minAge: 18, documentLast4: '826K', checkedAt: expect.any(String) } } },
    });
  });

  it('the sandbox simulator shows an ID as the recipient would', async () => {
    courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 300) });
    const created = expectOk(await orders().create(formA({ id_check: { required: true, min_age: 99 } })), 201).body;
    for (const status of ['arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed']) {
      expect(expectOk(await api(`${t.url}/api/v1/sandbox/orders/${created.booking_id}/advance`, { key: m.testKey, body: {} })).body.status).toBe(status);
    }
    expect(expectOk(await orders().get(created.booking_id)).body.proof.id_check).toMatchObject({ verified: true, min_age: 99 });
  });
});
