/**
 * Cash on delivery (issue #30 item 3) through REST and GraphQL, on the real app over a SQLite file:
 * cod_amount at creation, cod_collected at the door (missing: 422; different: a flagged mismatch),
 * both webhook shapes verified with the independent `standardwebhooks` verifier, the merchant's
 * report (tenants apart), a courier's cash, operators' settlements (audited), the sandbox simulator.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { codReportSchema } from '../../rest/openapi/paths/cod.js';
import { courierCashSchema, deliveryConfirmedResponseSchema, orderDetailsResponseSchema } from '../../rest/openapi/responses-orders.js';
import { eventPayloadSchema, flatPayloadSchema } from '../../rest/openapi/responses-webhooks.js';
import { ADMIN_TOKEN, api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { FAST_WEBHOOKS, startReceiver, waitFor, webhooksApi, type Receiver } from '../webhooks/support.js';
import { EVIDENCE, PLACES, courierOnDuty, expectError, expectOk, expectWireShape, formA, formB, merchantApi, north, standDown, startOrdersApp, type CourierClient, type Http } from './support.js';

type Wire = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

const ERR = '... on AppError { code message fields { field message } }';
const at = north(PLACES.lasCondes, 5);

describe('cash on delivery (issue #30 item 3)', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let other: MerchantCredentials;
  let receiver: Receiver;
  let courier: CourierClient;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startOrdersApp({ env: FAST_WEBHOOKS });
    m = await t.createMerchant({ name: 'COD Merchant' });
    other = await t.createMerchant({ name: 'COD Other' });
    const hooks = webhooksApi(t.url, m.testKey);
    expectOk(await hooks.create({ url: `${receiver.url}/event`, payload_shape: 'event', events: ['order.status_changed'] }), 201);
    expectOk(await hooks.create({ url: `${receiver.url}/flat`, payload_shape: 'flat', events: ['order.status_changed'] }), 201);
  });
  afterAll(async () => {
    await t?.stop();
    await receiver?.close();
  });
  afterEach(() => courier && standDown(courier));

  const g = async (query: string, variables: Record<string, unknown>, key: string) => {
    const r = await gql(t.url, query, { key, variables });
    expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
    return r.body.data as Wire;
  };
  const report = (key: string, query = '') => api(`${t.url}/api/v1/cod/report${query}`, { key });
  const cashOf = async (c: CourierClient) => expectOk(await api(`${t.url}/api/v1/couriers/me/cash`, { key: c.token })).body.cash;

  async function orderAtDropoff(key: string, mode: 'live' | 'test', body: Record<string, unknown>): Promise<string> {
    courier = await courierOnDuty(t, { mode, at: north(PLACES.providencia, 300) });
    const created = expectOk(await merchantApi(t, key).create(body), 201).body;
    expect(created.status).toBe('assigned');
    expectOk(await courier.status(created.booking_id, 'picked_up'));
    expectOk(await courier.status(created.booking_id, 'arrived_dropoff'));
    return created.booking_id as string;
  }

  it('REST creation: cod_amount optional with cash_on_delivery, refused on prepaid, an integer 1–10,000,000; on both forms', async () => {
    const orders = merchantApi(t, m.testKey);
    const fieldOf = (res: Http) => expectError(res, 400, 'VALIDATION_ERROR').body.error.fields.map((f: Wire) => f.field);
    expect(fieldOf(await orders.create(formB({ cod_amount: 5_000 })))).toEqual(['cod_amount']);
    for (const bad of [0, -1, 10_000_001, 99.5, '5000']) {
      expect(fieldOf(await orders.create(formA({ payment_mode: 'cash_on_delivery', cod_amount: bad })))).toEqual(['cod_amount']);
    }
    const b = expectOk(await orders.create(formB({ payment_mode: 'cash_on_delivery', cod_amount: 10_000_000 })), 201).body;
    const details = expectOk(await orders.get(b.booking_id)).body;
    expectWireShape(orderDetailsResponseSchema, details);
    expect(details).toMatchObject({ payment_mode: 'cash_on_delivery', cod_amount: 10_000_000, cod: null });
    const prepaid = expectOk(await orders.create(formA()), 201).body;
    expect(expectOk(await orders.get(prepaid.booking_id)).body).toMatchObject({ payment_mode: 'prepaid', cod_amount: null, cod: null });
    for (const id of [b.booking_id, prepaid.booking_id]) expectOk(await orders.cancel(id));
  });

  it('REST delivery: cod_collected required (422), a different amount recorded and flagged on the order, both signed webhooks, the report and the courier cash', async () => {
    const id = await orderAtDropoff(m.testKey, 'test', formA({ payment_mode: 'cash_on_delivery', cod_amount: 15_990 }));
    const job = expectOk(await courier.orders()).body.orders.find((o: Wire) => o.booking_id === id);
    expect(job.cod_amount).toBe(15_990);
    const body = { driver_id: courier.id, coords: at, ...EVIDENCE };
    const missing = expectError(await courier.deliver(id, body), 422, 'COD_COLLECTED_REQUIRED');
    expect(missing.body.error).toMatchObject({ fields: [{ field: 'cod_collected' }], details: { cod_amount: 15_990 } });
    expectError(await merchantApi(t, m.testKey).deliver(id, body), 422, 'COD_COLLECTED_REQUIRED');
    expectError(await courier.deliver(id, { ...body, cod_collected: -5 }), 400, 'VALIDATION_ERROR');
    expectError(await courier.deliver(id, { ...body, cod_collected: '15990' }), 400, 'VALIDATION_ERROR');
    expect(expectOk(await merchantApi(t, m.testKey).get(id)).body.status).toBe('arrived_dropoff');

    expectWireShape(deliveryConfirmedResponseSchema, expectOk(await courier.deliver(id, { ...body, cod_collected: 15_000 })).body);
    const cod = { expected: 15_990, collected: 15_000, mismatch: true, collected_at: expect.any(String) };
    const details = expectOk(await merchantApi(t, m.testKey).get(id)).body;
    expectWireShape(orderDetailsResponseSchema, details);
    expect(details).toMatchObject({ status: 'completed', cod_amount: 15_990, cod });

    const completions = await waitFor(() => {
      const mine = receiver.receipts.filter((r) => r.body.includes(id) && /"(completed|delivered)"/.test(r.body));
      return mine.length >= 2 && mine;
    }, { what: 'the completion webhooks (both shapes)' });
    for (const receipt of completions) {
      const payload = new Webhook(m.apiSecret).verify(receipt.body, receipt.headers) as Wire;
      expectWireShape('event' in payload ? eventPayloadSchema : flatPayloadSchema, payload);
      expect(payload).toMatchObject({ cod_amount: 15_990, cod });
    }
    const creation = receiver.receipts.find((r) => r.body.includes(id) && r.path === '/event' && r.body.includes('"new"'))!;
    expect(JSON.parse(creation.body)).toMatchObject({ cod_amount: 15_990 });
    expect(JSON.parse(creation.body)).not.toHaveProperty('cod');

    const page = expectOk(await report(m.testKey)).body;
    expectWireShape(codReportSchema, page);
    expect(page).toMatchObject({ collected: 15_000, settled: 0, outstanding: 15_000, mismatches: 1, has_more: false, next_cursor: null });
    expect(page.lines).toEqual([{
      id: expect.stringMatching(/^led_/), booking_id: id, courier_id: courier.id, expected: 15_990, collected: 15_000, mismatch: true, status: 'counted', handed_over: 0, collected_at: expect.any(String),
    }]);
    const cash = await cashOf(courier);
    expectWireShape(courierCashSchema, cash);
    expect(cash).toEqual({ currency: 'CLP', collected: 15_000, pending_confirmation: 0, settled: 0, balance: 15_000 });
  });

  it('the report: tenants and modes apart, keyset pages, bad windows and cursors are 400', async () => {
    expect(expectOk(await report(other.testKey)).body).toMatchObject({ collected: 0, lines: [] });
    expect(expectOk(await report(m.liveKey)).body).toMatchObject({ collected: 0, lines: [] });
    expectError(await report(''), 401, 'INVALID_API_KEY');
    const onePerPage = expectOk(await report(m.testKey, '?first=1')).body;
    expect(onePerPage.lines).toHaveLength(1);
    if (onePerPage.has_more) expectOk(await report(m.testKey, `?first=1&after=${onePerPage.next_cursor}`));
    const [from, to] = [Date.now() + 86_400_000, Date.now() + 2 * 86_400_000].map((ms) => encodeURIComponent(new Date(ms).toISOString()));
    expect(expectOk(await report(m.testKey, `?from=${from}&to=${to}`)).body).toMatchObject({ collected: 0, outstanding: 15_000, lines: [] });
    for (const query of ['?from=2025-02-01T00:00:00Z&to=2025-01-01T00:00:00Z', '?from=2023-01-01T00:00:00Z&to=2025-01-01T00:00:00Z', '?first=0', '?first=101', '?after=bk_01ABC', '?after=%27%20OR%201%3D1', '?from=yesterday', '?extra=1']) {
      expectError(await report(m.testKey, query), 400, 'VALIDATION_ERROR');
    }
  });

  it('GraphQL: codAmount at creation, courierConfirmDelivery needs codCollected (typed error), codReport, courierCash; operators record hand-overs and payouts (audited, bounded, live only)', async () => {
    courier = await courierOnDuty(t, { mode: 'live', at: north(PLACES.providencia, 300) });
    const input = {
      pickup: { address: 'Av. Providencia 1234', coords: PLACES.providencia }, dropoff: { address: 'Apoquindo', coords: PLACES.lasCondes },
      customerName: 'Camila Rojas', customerPhone: '+56912345678', paymentMode: 'cash_on_delivery',
    };
    const create = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { __typename ... on MutationCreateOrderSuccess { data { id status codAmount cod { collected } } } ${ERR} } }`;
    expect((await g(create, { input: { ...input, paymentMode: 'prepaid', codAmount: 100 } }, m.liveKey)).createOrder).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR', fields: [{ field: 'codAmount' }] });
    const created = (await g(create, { input: { ...input, codAmount: 8_500 } }, m.liveKey)).createOrder.data;
    expect(created).toMatchObject({ status: 'assigned', codAmount: 8_500, cod: null });
    expectOk(await courier.status(created.id, 'picked_up'));
    expectOk(await courier.status(created.id, 'arrived_dropoff'));

    const merchantDeliver = `mutation ($id: String!, $input: ConfirmDeliveryInput!) { confirmDelivery(id: $id, input: $input) { __typename ${ERR} } }`;
    const byMerchant = { driverId: courier.id, coords: at, photoUrl: EVIDENCE.photo_url, signatureUrl: EVIDENCE.signature_url };
    expect((await g(merchantDeliver, { id: created.id, input: byMerchant }, m.liveKey)).confirmDelivery).toMatchObject({ __typename: 'AppError', code: 'COD_COLLECTED_REQUIRED' });
    expect((await gql(t.url, merchantDeliver, { key: m.liveKey, variables: { id: created.id, input: { ...byMerchant, codCollected: 'cash' } } })).body.errors).toBeDefined();

    const deliver = `mutation ($id: ID!, $coords: LatLngInput!, $photo: String!, $signature: String!, $cod: Int) {
      courierConfirmDelivery(id: $id, coords: $coords, photoUrl: $photo, signatureUrl: $signature, codCollected: $cod) {
        __typename ... on MutationCourierConfirmDeliverySuccess { data { id status codAmount cod { expected collected mismatch collectedAt } } } ${ERR} } }`;
    const variables = { id: created.id, coords: at, photo: EVIDENCE.photo_url, signature: EVIDENCE.signature_url };
    expect((await g(deliver, variables, courier.token)).courierConfirmDelivery).toMatchObject({ __typename: 'AppError', code: 'COD_COLLECTED_REQUIRED' });
    const done = (await g(deliver, { ...variables, cod: 8_500 }, courier.token)).courierConfirmDelivery;
    expect(done.data).toMatchObject({ status: 'completed', codAmount: 8_500, cod: { expected: 8_500, collected: 8_500, mismatch: false } });

    const reportQuery = `query ($first: Int) { codReport(first: $first) { __typename ... on QueryCodReportSuccess { data {
      collected settled outstanding mismatches nextCursor lines { bookingId expected collected mismatch } } } ${ERR} } }`;
    expect((await g(reportQuery, {}, m.liveKey)).codReport.data).toMatchObject({
      collected: 8_500, settled: 0, outstanding: 8_500, mismatches: 0, nextCursor: null, lines: [{ bookingId: created.id, expected: 8_500, collected: 8_500, mismatch: false }],
    });
    expect((await g(reportQuery, { first: 500 }, m.liveKey)).codReport).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR' });
    expect((await g(reportQuery, {}, other.liveKey)).codReport.data).toMatchObject({ collected: 0, lines: [] });
    expect((await g('{ courierCash { collected settled balance } }', {}, courier.token)).courierCash).toEqual({ collected: 8_500, settled: 0, balance: 8_500 });
    // A merchant key is no courier, a courier token no merchant.
    expect((await gql(t.url, '{ courierCash { balance } }', { key: m.liveKey })).body.errors).toBeDefined();
    expect((await gql(t.url, reportQuery, { key: courier.token })).body.errors).toBeDefined();

    const handOver = `mutation ($courierId: ID!, $amount: Int!, $key: String!) { adminRecordCodHandOver(courierId: $courierId, amount: $amount, idempotencyKey: $key) {
      __typename ... on MutationAdminRecordCodHandOverSuccess { data { courierId amount lines { bookingId merchantId amount } } } ${ERR} } }`;
    const payOut = `mutation ($merchantId: ID!, $amount: Int!, $key: String!) { adminRecordCodPayout(merchantId: $merchantId, amount: $amount, idempotencyKey: $key) {
      __typename ... on MutationAdminRecordCodPayoutSuccess { data { id merchantId amount } } ${ERR} } }`;
    let n = 0;
    const admin = (query: string, vars: Record<string, unknown>) => g(query, { key: `k-${++n}`, ...vars }, ADMIN_TOKEN).then((d) => d.adminRecordCodHandOver ?? d.adminRecordCodPayout);
    expect(await admin(handOver, { courierId: courier.id, amount: 9_000 })).toMatchObject({ __typename: 'AppError', code: 'CONFLICT' });
    expect(await admin(handOver, { courierId: courier.id, amount: 0 })).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR' });
    expect(await admin(handOver, { courierId: 'cr_missing', amount: 1 })).toMatchObject({ __typename: 'AppError', code: 'COURIER_NOT_FOUND' });
    // Five hand-overs of 2,000 at once against 8,500 held: four are recorded, the fifth would overdraw.
    const handOvers = await Promise.all(Array.from({ length: 5 }, () => admin(handOver, { courierId: courier.id, amount: 2_000 })));
    expect(handOvers.filter((h) => h.__typename === 'AppError').map((h) => h.code)).toEqual(['CONFLICT']);
    expect(handOvers.filter((h) => h.data).map((h) => h.data)).toEqual(Array(4).fill({ courierId: courier.id, amount: 2_000, lines: [{ bookingId: created.id, merchantId: m.merchantId, amount: 2_000 }] }));
    expect(await cashOf(courier)).toMatchObject({ collected: 8_500, settled: 8_000, balance: 500 });
    const couriers = await g(`{ adminCouriers(mode: live, first: 200) { couriers { id cashInHand } } }`, {}, ADMIN_TOKEN);
    expect(couriers.adminCouriers.couriers.find((c: Wire) => c.id === courier.id).cashInHand).toBe(500);

    expect(await admin(payOut, { merchantId: m.merchantId, amount: 8_001 })).toMatchObject({ __typename: 'AppError', code: 'COD_PAYOUT_EXCEEDS_CASH' });
    expect((await admin(payOut, { merchantId: m.merchantId, amount: 6_000 })).data).toMatchObject({ merchantId: m.merchantId, amount: 6_000 });
    const after = expectOk(await report(m.liveKey)).body;
    expect(after).toMatchObject({ collected: 8_500, handed_over: 8_000, settled: 6_000, outstanding: 2_500, payable: 2_000, mismatches: 0 });
    expect(expectOk(await report(other.liveKey)).body).toMatchObject({ settled: 0, outstanding: 0 });

    const audit = await g(`{ adminAuditLog(targetId: "${courier.id}") { entries { action targetType targetId after } } }`, {}, ADMIN_TOKEN);
    expect(audit.adminAuditLog.entries.filter((e: Wire) => e.action === 'cod.hand_over').map((e: Wire) => JSON.parse(e.after).amount)).toEqual(Array(4).fill(2_000));
    const paid = await g(`{ adminAuditLog(action: "cod.pay_out") { entries { targetId after } } }`, {}, ADMIN_TOKEN);
    expect(paid.adminAuditLog.entries.map((e: Wire) => [e.targetId, JSON.parse(e.after).amount])).toEqual([[m.merchantId, 6_000]]);
    // The ledger keeps the charge untouched beside the COD lines; hand-overs name the merchant they are for.
    const kinds = (await t.app.container.store.ledger.listByMerchant({ merchantId: m.merchantId, mode: 'live' })).map((e) => e.kind);
    expect(kinds).toEqual(['charge', 'cod_collected', ...Array(4).fill('cod_handover'), 'cod_settlement']);
  });

  it('cash on delivery without cod_amount (the spec\'s Form B): accepted on both forms and GraphQL; the courier records what was collected, expected null, never a mismatch', async () => {
    const spec = await t.createMerchant({ name: 'COD Spec', address: 'Av. Providencia 1234, Providencia' });
    expectOk(await webhooksApi(t.url, spec.testKey).create({ url: `${receiver.url}/spec-event`, payload_shape: 'event', events: ['order.status_changed'] }), 201);
    const orders = merchantApi(t, spec.testKey);
    // The spec's Form B body, as every shop plugin sends it: payment_mode and no amount.
    const formBBody = {
      customer_name: 'Javier Muñoz', customer_phone: '+56 9 8765 4321', customer_rut: '12.345.678-5', dropoff_address: 'Av. Apoquindo 3000, Las Condes',
      payment_mode: 'cash_on_delivery', prep_time_mins: 15, order_notes: 'Cobrar en efectivo',
    };
    const b = expectOk(await orders.create(formBBody), 201).body;
    expect(expectOk(await orders.get(b.booking_id)).body).toMatchObject({ payment_mode: 'cash_on_delivery', cod_amount: null, cod: null });
    expectOk(await orders.cancel(b.booking_id));
    const create = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { __typename ... on MutationCreateOrderSuccess { data { id paymentMode codAmount cod { expected } } } ${ERR} } }`;
    const input = { dropoff: { address: 'Apoquindo', coords: PLACES.lasCondes }, customerName: 'Camila Rojas', customerPhone: '+56912345678', paymentMode: 'cash_on_delivery' };
    const byGraphql = (await g(create, { input }, spec.testKey)).createOrder;
    expect(byGraphql).toMatchObject({ __typename: 'MutationCreateOrderSuccess', data: { paymentMode: 'cash_on_delivery', codAmount: null, cod: null } });
    expectOk(await orders.cancel(byGraphql.data.id));
    // Still refused: an amount without cash on delivery, and cash on delivery on a multi-stop order.
    expect(expectError(await orders.create({ ...formBBody, payment_mode: 'prepaid', cod_amount: 5_000 }), 400, 'VALIDATION_ERROR').body.error.fields).toMatchObject([{ field: 'cod_amount' }]);
    const stops = [{ address: { address: 'Apoquindo', coords: PLACES.lasCondes }, contact_name: 'Ana', contact_phone: '+56911111111' }, { address: { address: 'Ñuñoa', coords: PLACES.nunoa }, contact_name: 'Luis', contact_phone: '+56922222222' }];
    expect(expectError(await orders.create({ customer_name: 'Camila Rojas', customer_phone: '+56912345678', payment_mode: 'cash_on_delivery', stops }), 400, 'VALIDATION_ERROR').body.error.fields).toMatchObject([{ field: 'payment_mode' }]);

    // Form A with cash_on_delivery and no amount, delivered: the courier says what was collected.
    const id = await orderAtDropoff(spec.testKey, 'test', formA({ payment_mode: 'cash_on_delivery' }));
    const job = expectOk(await courier.orders()).body.orders.find((o: Wire) => o.booking_id === id);
    expect(job).toMatchObject({ payment_mode: 'cash_on_delivery', cod_amount: null });
    const body = { driver_id: courier.id, coords: at, ...EVIDENCE };
    const missing = expectError(await courier.deliver(id, body), 422, 'COD_COLLECTED_REQUIRED');
    expect(missing.body.error).toMatchObject({ fields: [{ field: 'cod_collected' }], details: { cod_amount: null } });
    expectOk(await courier.deliver(id, { ...body, cod_collected: 7_490 }));
    const cod = { expected: null, collected: 7_490, mismatch: false, collected_at: expect.any(String) };
    const details = expectOk(await orders.get(id)).body;
    expectWireShape(orderDetailsResponseSchema, details);
    expect(details).toMatchObject({ status: 'completed', cod_amount: null, cod });
    const completion = await waitFor(() => receiver.receipts.find((r) => r.path === '/spec-event' && r.body.includes(id) && r.body.includes('"completed"')), { what: 'the completion webhook' });
    const payload = new Webhook(spec.apiSecret).verify(completion.body, completion.headers) as Wire;
    expectWireShape(eventPayloadSchema, payload);
    expect(payload).toMatchObject({ cod_amount: null, cod });

    const page = expectOk(await report(spec.testKey)).body;
    expectWireShape(codReportSchema, page);
    expect(page).toMatchObject({ collected: 7_490, outstanding: 7_490, mismatches: 0 });
    expect(page.lines).toEqual([{ id: expect.stringMatching(/^led_/), booking_id: id, courier_id: courier.id, expected: null, collected: 7_490, mismatch: false, status: 'counted', handed_over: 0, collected_at: expect.any(String) }]);
    const reportQuery = '{ codReport { __typename ... on QueryCodReportSuccess { data { mismatches lines { bookingId expected collected mismatch } } } } }';
    expect((await g(reportQuery, {}, spec.testKey)).codReport.data).toEqual({ mismatches: 0, lines: [{ bookingId: id, expected: null, collected: 7_490, mismatch: false }] });
  });

  it('a test courier holds no real cash: a hand-over is refused; merchants cannot record one at all', async () => {
    courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 300) });
    const settle = `mutation { adminRecordCodHandOver(courierId: "${courier.id}", amount: 1, idempotencyKey: "t-1") { __typename ${ERR} } }`;
    expect((await g(settle, {}, ADMIN_TOKEN)).adminRecordCodHandOver).toMatchObject({ __typename: 'AppError', code: 'CONFLICT' });
    expect((await gql(t.url, settle, { key: m.liveKey })).body.errors).toBeDefined();
  });

  it('the sandbox simulator pays exactly the cod_amount at the door (0 when it is unknown)', async () => {
    courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 300) });
    const created = expectOk(await merchantApi(t, m.testKey).create(formA({ payment_mode: 'cash_on_delivery', cod_amount: 4_990 })), 201).body;
    for (const status of ['arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed']) {
      expect(expectOk(await api(`${t.url}/api/v1/sandbox/orders/${created.booking_id}/advance`, { key: m.testKey, body: {} })).body.status).toBe(status);
    }
    expect(expectOk(await merchantApi(t, m.testKey).get(created.booking_id)).body.cod).toMatchObject({ expected: 4_990, collected: 4_990, mismatch: false });
    // An order of unknown amount: the simulated recipient pays nothing (there is no amount to pay), never a mismatch.
    const unknown = expectOk(await merchantApi(t, m.testKey).create(formA({ payment_mode: 'cash_on_delivery' })), 201).body;
    for (const status of ['arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed']) {
      expect(expectOk(await api(`${t.url}/api/v1/sandbox/orders/${unknown.booking_id}/advance`, { key: m.testKey, body: {} })).body.status).toBe(status);
    }
    expect(expectOk(await merchantApi(t, m.testKey).get(unknown.booking_id)).body.cod).toMatchObject({ expected: null, collected: 0, mismatch: false });
  });
});
