import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestHash } from '../../src/domain/idempotency.js';
import { gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { EVIDENCE, PLACES, courierOnDuty, expectError, expectOk, formA, formB, merchantApi, north, standDown, startOrdersApp } from './support.js';

type Wire = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

const ERR = '... on AppError { code message fields { field } }';
const CREATE = `mutation ($input: CreateOrderInput!, $key: String) { createOrder(input: $input, idempotencyKey: $key) {
  __typename ... on MutationCreateOrderSuccess { data { id customerRut notes paymentMode pickup { lat lng } } } ${ERR} } }`;
const DELIVER = `mutation ($id: String!, $input: ConfirmDeliveryInput!) { confirmDelivery(id: $id, input: $input) {
  __typename ... on MutationConfirmDeliverySuccess { data { id status } } ${ERR} } }`;
const QUOTE = `query ($input: QuoteInput!) { quote(input: $input) { __typename ... on QueryQuoteSuccess { data { price distanceM } } ${ERR} } }`;

describe('domain commands through both doors', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  const as = (key: string) => async (query: string, variables: Record<string, unknown> = {}) => (await gql(t.url, query, { key, variables })).body.data as Wire;
  beforeAll(async () => {
    t = await startOrdersApp();
    m = await t.createMerchant();
  });
  afterAll(() => t?.stop());

  it('GraphQL confirmDelivery is refused by the lifecycle (typed INVALID_STATUS_TRANSITION) before the pickup, whatever the position; nothing changes', async () => {
    const courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 300) });
    const orders = merchantApi(t, m.testKey);
    const id: string = expectOk(await orders.create(formA()), 201).body.booking_id;
    expect(expectOk(await orders.get(id)).body.status).toBe('assigned');
    const input = { driverId: courier.id, coords: north(PLACES.lasCondes, 500), photoUrl: EVIDENCE.photo_url, signatureUrl: EVIDENCE.signature_url };
    expect((await as(m.testKey)(DELIVER, { id, input })).confirmDelivery).toMatchObject({ __typename: 'AppError', code: 'INVALID_STATUS_TRANSITION' });
    // The same through REST, by another of the order's references.
    const tracking: string = expectOk(await orders.get(id)).body.tracking_number;
    expectError(await orders.deliver(tracking, { driver_id: courier.id, coords: PLACES.lasCondes, ...EVIDENCE }), 409, 'INVALID_STATUS_TRANSITION');
    expect(expectOk(await orders.events(id)).body.events.map((e: Wire) => e.status)).toEqual(['new', 'assigned']);
    expectOk(await orders.cancel(id));
    await standDown(courier);
  });

  it('GraphQL null is "left out": the same as not sending the field, for every input', async () => {
    const input = {
      customerName: 'Ana', customerPhone: '+56911112222', dropoff: { address: 'Irarrázaval 3000, Ñuñoa', number: null, coords: null },
      customerRut: null, notes: null, pickup: null, paymentMode: null, items: [{ name: 'Caja', quantity: null, weightKg: null }],
    };
    const created = (await as(m.testKey)(CREATE, { input })).createOrder;
    expect(created).toMatchObject({ __typename: 'MutationCreateOrderSuccess', data: { customerRut: null, notes: null, paymentMode: 'prepaid' } });
    // The pickup defaulted to the merchant address, as in REST without `pickup`.
    const rest = expectOk(await merchantApi(t, m.testKey).create(formB({ payment_mode: 'prepaid' })), 201).body;
    const restPickup = expectOk(await merchantApi(t, m.testKey).get(rest.booking_id)).body.pickup.coords;
    expect(created.data.pickup).toEqual(restPickup);
    const quote = (await as(m.testKey)(QUOTE, { input: { destination: { coords: PLACES.lasCondes }, origin: null, totalWeightKg: null, prepTimeMins: null } })).quote;
    expect(quote).toMatchObject({ __typename: 'QueryQuoteSuccess', data: { price: expect.any(Number) } });
  });

  it('GraphQL null clears a setting that can be cleared and leaves the others alone', async () => {
    const UPDATE = `mutation ($input: MerchantSettingsInput!) { updateMerchantSettings(input: $input) {
      __typename ... on MutationUpdateMerchantSettingsSuccess { data { prepTimeMins settings { storefrontDomain sandboxSpeed } } } ${ERR} } }`;
    const s = await t.createMerchant();
    const set = await as(s.testKey)(UPDATE, { input: { prepTimeMins: 12, storefrontDomain: 'shop-a.myshopify.com', sandboxSpeed: 5 } });
    expect(set.updateMerchantSettings.data).toEqual({ prepTimeMins: 12, settings: { storefrontDomain: 'shop-a.myshopify.com', sandboxSpeed: 5 } });
    const cleared = await as(s.testKey)(UPDATE, { input: { prepTimeMins: null, storefrontDomain: null, sandboxSpeed: null } });
    expect(cleared.updateMerchantSettings.data).toEqual({ prepTimeMins: 12, settings: { storefrontDomain: null, sandboxSpeed: null } });
    const ENDPOINT = `mutation ($input: WebhookEndpointInput!) { createWebhookEndpoint(input: $input) {
      __typename ... on MutationCreateWebhookEndpointSuccess { data { id description payloadShape } } ${ERR} } }`;
    const UPDATE_ENDPOINT = `mutation ($id: ID!, $input: WebhookEndpointInput!) { updateWebhookEndpoint(id: $id, input: $input) {
      __typename ... on MutationUpdateWebhookEndpointSuccess { data { description payloadShape } } ${ERR} } }`;
    const created = (await as(s.testKey)(ENDPOINT, { input: { url: 'https://hooks.example.com/a', description: 'orders', payloadShape: 'flat' } })).createWebhookEndpoint;
    expect(created.data).toMatchObject({ description: 'orders', payloadShape: 'flat' });
    const changed = (await as(s.testKey)(UPDATE_ENDPOINT, { id: created.data.id, input: { description: null, payloadShape: null } })).updateWebhookEndpoint;
    expect(changed.data).toEqual({ description: null, payloadShape: 'flat' });
  });

  it('GraphQL validation errors name the GraphQL input fields, REST errors the wire fields', async () => {
    const input = { customerName: 'Ana', customerPhone: '12', dropoff: { coords: PLACES.lasCondes } };
    expect((await as(m.testKey)(CREATE, { input })).createOrder).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR', fields: [{ field: 'customerPhone' }] });
    const rest = expectError(await merchantApi(t, m.testKey).create(formA({ customer_phone: '12' })), 400, 'VALIDATION_ERROR');
    expect(rest.body.error.fields).toEqual([{ field: 'customer_phone', message: expect.any(String) }]);
  });

  it('an idempotency key stored before commands were hashed (hash of the raw REST body) still replays its order', async () => {
    const orders = merchantApi(t, m.testKey);
    const body = formA({ reference_id: 'BEFORE-UPGRADE' });
    const principal = await t.app.container.services.auth.authenticateApiKey({ apiKey: m.testKey });
    const { orders: service } = t.app.container.services;
    // What the previous version stored: the key with the hash of the body as sent.
    const { order } = await service.createOrderFromDraft({
      principal, idempotencyKey: 'old-key', hash: requestHash(body), actor: { kind: 'merchant', id: m.merchantId },
      draft: { dropoff: body.dropoff, pickup: body.pickup, customerName: body.customer_name, customerPhone: body.customer_phone, customerRut: null, paymentMode: 'prepaid', referenceId: body.reference_id, ecommerceOrderId: null, items: body.items, weightKg: 1, notes: null },
    });
    expect(expectOk(await orders.create(body, 'old-key'), 200).body.booking_id).toBe(order.id);
    expectError(await orders.create(formA({ reference_id: 'OTHER' }), 'old-key'), 422, 'IDEMPOTENCY_KEY_REUSED');
  });
});
