/**
 * Error field names by edge (issue #39 item 5): a domain error names a field once, by its key;
 * REST words it in the wire's snake_case (`cod_amount`, `payment_mode`, `total_weight_kg`), in
 * `fields` and in the messages, and GraphQL keeps its camelCase names (`codAmount`). Each bad body
 * below reaches a domain rule (not the wire schema), on the real app over a SQLite file.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { EVIDENCE, PLACES, courierOnDuty, formA, formB, merchantApi, north, standDown, startOrdersApp, type CourierClient, type Http } from '../orders/support.js';

type Wire = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

const CAMEL = /\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b/g;
/** The camelCase words of an error's message and fields (none are allowed on REST). */
const camelIn = (error: Wire) => JSON.stringify({ message: error.message, fields: error.fields ?? [] }).match(CAMEL) ?? [];
const ERR = '... on AppError { code message fields { field message } }';

describe('error field names: snake_case on REST, camelCase on GraphQL', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  const couriers: CourierClient[] = [];

  beforeAll(async () => {
    t = await startOrdersApp();
    m = await t.createMerchant({ name: 'Nombres de Campos', address: 'Av. Providencia 1234, Providencia' });
  });
  afterAll(() => t?.stop());
  afterEach(async () => {
    await standDown(...couriers.splice(0));
  });

  /** A REST error with its status and code, its fields as given, and no camelCase anywhere in its words. */
  function restError(res: Http, status: number, code: string, fields: string[]): Wire {
    expect({ status: res.status, code: res.body?.error?.code }, JSON.stringify(res.body)).toEqual({ status, code });
    const error = res.body.error as Wire;
    expect(error.fields.map((f: Wire) => f.field)).toEqual(fields);
    expect(camelIn(error), JSON.stringify(error)).toEqual([]);
    return error;
  }

  it('POST /orders: the cash-on-delivery, quote, rate and schedule rules name cod_amount, payment_mode, quote_id, rate_id, total_weight_kg, deliver_before', async () => {
    const orders = merchantApi(t, m.testKey);
    const cod = restError(await orders.create(formB({ cod_amount: 5_000 })), 400, 'VALIDATION_ERROR', ['cod_amount']);
    expect(cod.message).toBe('cod_amount is only for cash-on-delivery orders');
    expect(cod.fields[0].message).toBe('only with payment_mode cash_on_delivery');
    const { dropoff: _d, ...base } = formA();
    const stops = [
      { address: { address: 'Apoquindo', coords: PLACES.lasCondes }, contact_name: 'Ana Pérez', contact_phone: '+56911111111' },
      { address: { address: 'Ñuñoa', coords: PLACES.nunoa }, contact_name: 'Luis Soto', contact_phone: '+56922222222' },
    ];
    restError(await orders.create({ ...base, stops, payment_mode: 'cash_on_delivery' }), 400, 'VALIDATION_ERROR', ['payment_mode']);
    restError(await orders.create(formA({ rate_id: 'express' })), 400, 'VALIDATION_ERROR', ['rate_id']);
    restError(await orders.create(formA({ quote_id: 'qt_01NOSUCHQUOTE000000000000' })), 404, 'QUOTE_NOT_FOUND', ['quote_id']);

    const quote = await api(`${t.url}/api/v1/shipping/quote`, { key: m.testKey, body: { origin: formA().pickup, destination: formA().dropoff, total_weight_kg: 1 } });
    expect(quote.status, JSON.stringify(quote.body)).toBe(200);
    const mismatch = restError(await orders.create(formA({ quote_id: quote.body.quote_id, total_weight_kg: 60, items: [] })), 422, 'QUOTE_MISMATCH', ['total_weight_kg']);
    expect(mismatch.message).toMatch(/total_weight_kg/);

    const soon = new Date(Date.now() + 60_000).toISOString();
    restError(await orders.create(formA({ deliver_before: soon })), 422, 'DELIVERY_WINDOW_UNREACHABLE', ['deliver_before']);
  });

  it('POST /orders/{id}/deliver: evidence, stop, ID check and cash rules name photo_url, stop_id, id_check, id_check.document_number, cod_collected', async () => {
    const courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 300) });
    couriers.push(courier);
    const orders = merchantApi(t, m.testKey);
    const created = await orders.create(formA({ payment_mode: 'cash_on_delivery', id_check: { required: true } }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.booking_id as string;
    for (const status of ['picked_up', 'arrived_dropoff']) expect((await courier.status(id, status)).status).toBe(200);
    const body = { driver_id: courier.id, coords: north(PLACES.lasCondes, 5) };

    restError(await orders.deliver(id, body), 400, 'VALIDATION_ERROR', ['photo_url', 'signature_url']);
    restError(await orders.deliver(id, { ...body, ...EVIDENCE, stop_id: 'stp_1' }), 400, 'VALIDATION_ERROR', ['stop_id']);
    const idCheck = restError(await orders.deliver(id, { ...body, ...EVIDENCE }), 422, 'ID_CHECK_REQUIRED', ['id_check']);
    expect(idCheck.message).toMatch(/send id_check with document_number and date_of_birth/);
    restError(await orders.deliver(id, { ...body, ...EVIDENCE, id_check: { document_number: '12.345.678-0', date_of_birth: '1990-01-01' } }), 422, 'ID_DOCUMENT_INVALID', ['id_check.document_number']);
    const cash = restError(await orders.deliver(id, { ...body, ...EVIDENCE, id_check: { document_number: '12.345.678-5', date_of_birth: '1990-01-01' } }), 422, 'COD_COLLECTED_REQUIRED', ['cod_collected']);
    expect(cash.message).toMatch(/send cod_collected/);
    // The courier's own endpoint words them the same way.
    restError(await courier.deliver(id, { ...body, ...EVIDENCE, id_check: { document_number: '12.345.678-5', date_of_birth: '1990-01-01' } }), 422, 'COD_COLLECTED_REQUIRED', ['cod_collected']);
  });

  it('GraphQL keeps its camelCase names for the same rules', async () => {
    const g = async (query: string, variables: Record<string, unknown>, key: string) => {
      const r = await gql(t.url, query, { key, variables });
      expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
      return r.body.data as Wire;
    };
    const create = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { __typename ${ERR} } }`;
    const input = { pickup: { address: 'Av. Providencia 1234', coords: PLACES.providencia }, dropoff: { address: 'Apoquindo', coords: PLACES.lasCondes }, customerName: 'Camila Rojas', customerPhone: '+56912345678' };
    const cod = (await g(create, { input: { ...input, paymentMode: 'prepaid', codAmount: 100 } }, m.testKey)).createOrder;
    expect(cod).toEqual({ __typename: 'AppError', code: 'VALIDATION_ERROR', message: 'codAmount is only for cash-on-delivery orders', fields: [{ field: 'codAmount', message: 'only with paymentMode cash_on_delivery' }] });
    expect((await g(create, { input: { ...input, rateId: 'express' } }, m.testKey)).createOrder).toMatchObject({ __typename: 'AppError', fields: [{ field: 'rateId' }] });

    const courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 300) });
    couriers.push(courier);
    const created = await merchantApi(t, m.testKey).create(formA({ payment_mode: 'cash_on_delivery' }));
    const id = created.body.booking_id as string;
    for (const status of ['picked_up', 'arrived_dropoff']) expect((await courier.status(id, status)).status).toBe(200);
    const deliver = `mutation ($id: ID!, $coords: LatLngInput!, $photo: String, $signature: String, $stop: ID) {
      courierConfirmDelivery(id: $id, coords: $coords, photoUrl: $photo, signatureUrl: $signature, stopId: $stop) { __typename ${ERR} } }`;
    const variables = { id, coords: north(PLACES.lasCondes, 5), photo: EVIDENCE.photo_url, signature: EVIDENCE.signature_url };
    const missing = (await g(deliver, variables, courier.token)).courierConfirmDelivery;
    expect(missing).toMatchObject({ __typename: 'AppError', code: 'COD_COLLECTED_REQUIRED', fields: [{ field: 'codCollected' }] });
    expect(missing.message).toMatch(/send codCollected/);
    expect((await g(deliver, { ...variables, stop: 'stp_1' }, courier.token)).courierConfirmDelivery).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR', message: 'stopId is only accepted on a multi-stop order', fields: [{ field: 'stopId' }] });
    expect((await g(deliver, { ...variables, photo: null }, courier.token)).courierConfirmDelivery).toMatchObject({ __typename: 'AppError', fields: [{ field: 'photoUrl' }] });
  });
});
