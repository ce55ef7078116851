/**
 * Cash that follows cash (issue #39 item 4), on the real app over a SQLite file, through REST and
 * GraphQL: what a courier reports is a claim; a claim far above the order's amount waits for an
 * operator and counts nowhere until confirmed; hand-overs cover claims oldest first and are what
 * payouts are bounded by; hand-overs and payouts run once per Idempotency-Key.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { codReportSchema } from '../../rest/openapi/paths/cod.js';
import { ADMIN_TOKEN, api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { EVIDENCE, PLACES, courierOnDuty, expectError, expectOk, expectWireShape, formA, merchantApi, north, standDown, startOrdersApp, type CourierClient } from './support.js';

type Wire = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

const ERR = '... on AppError { code message }';
const at = north(PLACES.lasCondes, 5);

describe('cash that follows cash (issue #39)', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let courier: CourierClient;

  beforeAll(async () => {
    t = await startOrdersApp();
    m = await t.createMerchant({ name: 'Cash Merchant' });
  });
  afterAll(async () => {
    await t?.stop();
  });
  afterEach(() => courier && standDown(courier));

  const adminApi = (path: string, body?: unknown, key?: string) =>
    api(`${t.url}/api/v1/admin/cod${path}`, { key: ADMIN_TOKEN, ...(body !== undefined && { body }), ...(key !== undefined && { headers: { 'Idempotency-Key': key } }) });
  const report = async () => {
    const body = expectOk(await api(`${t.url}/api/v1/cod/report`, { key: m.liveKey })).body;
    expectWireShape(codReportSchema, body);
    return body;
  };
  const cash = async () => expectOk(await api(`${t.url}/api/v1/couriers/me/cash`, { key: courier.token })).body.cash;
  const g = async (query: string, variables: Record<string, unknown>) => {
    const r = await gql(t.url, query, { key: ADMIN_TOKEN, variables });
    expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
    return r.body.data as Wire;
  };

  /** A live COD order of `codAmount` delivered by the courier, who reports `collected`. */
  async function delivered(codAmount: number, collected: number): Promise<string> {
    const created = expectOk(await merchantApi(t, m.liveKey).create(formA({ payment_mode: 'cash_on_delivery', cod_amount: codAmount })), 201).body;
    expect(created.status).toBe('assigned');
    expectOk(await courier.status(created.booking_id, 'picked_up'));
    expectOk(await courier.status(created.booking_id, 'arrived_dropoff'));
    expectOk(await courier.deliver(created.booking_id, { driver_id: courier.id, coords: at, ...EVIDENCE, cod_collected: collected }));
    return created.booking_id as string;
  }

  it('REST: a claim of 10,000,000 on a 15,000 order waits for confirmation and counts nowhere; a payout of 6,000,000 with 15,000 handed over is refused, one within the bound passes; one key records once', async () => {
    courier = await courierOnDuty(t, { mode: 'live', at: north(PLACES.providencia, 300) });
    const far = await delivered(15_000, 10_000_000);
    // The order still shows what was typed (flagged); the money figures do not count it.
    expect(expectOk(await merchantApi(t, m.liveKey).get(far)).body.cod).toMatchObject({ expected: 15_000, collected: 10_000_000, mismatch: true });
    expect(await cash()).toEqual({ currency: 'CLP', collected: 0, pending_confirmation: 10_000_000, settled: 0, balance: 0 });
    const waiting = await report();
    expect(waiting).toMatchObject({ collected: 0, pending_confirmation: 10_000_000, handed_over: 0, settled: 0, outstanding: 0, payable: 0 });
    expect(waiting.lines).toMatchObject([{ booking_id: far, status: 'pending_confirmation', handed_over: 0 }]);
    // Nothing to hand over against it, nothing to pay out from it.
    expectError(await adminApi('/hand-overs', { courier_id: courier.id, amount: 15_000 }, 'h-far'), 409, 'CONFLICT');
    expectError(await adminApi('/payouts', { merchant_id: m.merchantId, amount: 6_000_000 }, 'p-far'), 409, 'COD_PAYOUT_EXCEEDS_CASH');
    const listed = expectOk(await adminApi(`/claims?courier_id=${courier.id}`)).body;
    expect(listed).toMatchObject({ claims: [{ booking_id: far, merchant_id: m.merchantId, courier_id: courier.id, expected: 15_000, collected: 10_000_000, status: 'pending_confirmation' }], has_more: false });

    // A claim as expected counts at once; the hand-over covers it (oldest claim that counts first).
    const ok = await delivered(15_000, 15_000);
    expect(await cash()).toMatchObject({ collected: 15_000, pending_confirmation: 10_000_000, balance: 15_000 });
    expectError(await adminApi('/hand-overs', { courier_id: courier.id, amount: 15_000 }), 400, 'VALIDATION_ERROR');
    const first = await adminApi('/hand-overs', { courier_id: courier.id, amount: 15_000 }, 'h-1');
    expect(expectOk(first, 201).body.hand_over).toMatchObject({ courier_id: courier.id, amount: 15_000, lines: [{ booking_id: ok, merchant_id: m.merchantId, amount: 15_000 }] });
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // Sent again with the key: the same answer, recorded once.
    const again = expectOk(await adminApi('/hand-overs', { courier_id: courier.id, amount: 15_000 }, 'h-1'), 201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expectError(await adminApi('/hand-overs', { courier_id: courier.id, amount: 14_000 }, 'h-1'), 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(await cash()).toMatchObject({ collected: 15_000, settled: 15_000, balance: 0 });

    // Payouts follow cash handed over: 6,000,000 is refused, 15,000 passes (once per key), then nothing is left.
    const refused = expectError(await adminApi('/payouts', { merchant_id: m.merchantId, amount: 6_000_000 }, 'p-1'), 409, 'COD_PAYOUT_EXCEEDS_CASH');
    expect(refused.body.error.details).toEqual({ payable: 15_000, handed_over: 15_000, paid_out: 0 });
    const paid = expectOk(await adminApi('/payouts', { merchant_id: m.merchantId, amount: 15_000 }, 'p-2'), 201).body.payout;
    expect(paid).toMatchObject({ merchant_id: m.merchantId, amount: 15_000, currency: 'CLP' });
    expect(expectOk(await adminApi('/payouts', { merchant_id: m.merchantId, amount: 15_000 }, 'p-2'), 201).body.payout).toEqual(paid);
    expectError(await adminApi('/payouts', { merchant_id: m.merchantId, amount: 1 }, 'p-3'), 409, 'COD_PAYOUT_EXCEEDS_CASH');
    expect(await report()).toMatchObject({ collected: 15_000, pending_confirmation: 10_000_000, handed_over: 15_000, settled: 15_000, outstanding: 0, payable: 0 });
    const book = await t.app.container.store.ledger.listByMerchant({ merchantId: m.merchantId, mode: 'live' });
    expect(book.filter((e) => e.kind === 'cod_handover' || e.kind === 'cod_settlement').map((e) => [e.kind, e.amount])).toEqual([['cod_handover', 15_000], ['cod_settlement', 15_000]]);

    // The operator rejects the far claim: it never counts; deciding again answers the same, the other decision is 409.
    const claimId = listed.claims[0].id as string;
    expect(expectOk(await adminApi(`/claims/${claimId}/reject`, {})).body.claim).toMatchObject({ id: claimId, status: 'rejected' });
    expect(expectOk(await adminApi(`/claims/${claimId}/reject`, {})).body.claim).toMatchObject({ status: 'rejected' });
    expectError(await adminApi(`/claims/${claimId}/confirm`, {}), 409, 'CONFLICT');
    expectError(await adminApi('/claims/led_nothing/confirm', {}), 404, 'NOT_FOUND');
    expect(await report()).toMatchObject({ collected: 15_000, pending_confirmation: 0, outstanding: 0 });
    expect(await cash()).toMatchObject({ collected: 15_000, pending_confirmation: 0, balance: 0 });

    // Only the admin token: a merchant key or courier token is not it.
    expectError(await api(`${t.url}/api/v1/admin/cod/payouts`, { key: m.liveKey, body: { merchant_id: m.merchantId, amount: 1 }, headers: { 'Idempotency-Key': 'x' } }), 401, 'INVALID_ADMIN_TOKEN');
    expectError(await api(`${t.url}/api/v1/admin/cod/claims`, { key: courier.token }), 401, 'INVALID_ADMIN_TOKEN');
    const audit = await g('{ adminAuditLog(action: "cod.claim_reject") { entries { targetId after } } }', {});
    expect(audit.adminAuditLog.entries.map((e: Wire) => JSON.parse(e.after))).toMatchObject([{ claimId, status: 'rejected', collected: 10_000_000 }]);
  });

  it('GraphQL: a confirmed claim counts from then on; the same hand-over and payout sent twice with one key are recorded once', async () => {
    courier = await courierOnDuty(t, { mode: 'live', at: north(PLACES.providencia, 300) });
    const before = await report();
    const far = await delivered(20_000, 100_000); // 5× the amount: far above
    const claims = await g(`query ($c: ID) { adminCodClaims(courierId: $c) { claims { id bookingId status expected collected } nextCursor } }`, { c: courier.id });
    expect(claims.adminCodClaims).toEqual({ claims: [{ id: expect.any(String), bookingId: far, status: 'pending_confirmation', expected: 20_000, collected: 100_000 }], nextCursor: null });
    const confirm = `mutation ($id: ID!) { adminConfirmCodClaim(id: $id) { __typename ... on MutationAdminConfirmCodClaimSuccess { data { id status } } ${ERR} } }`;
    expect((await g(confirm, { id: claims.adminCodClaims.claims[0].id })).adminConfirmCodClaim.data).toMatchObject({ status: 'confirmed' });
    expect(await cash()).toMatchObject({ collected: 100_000, pending_confirmation: 0, balance: 100_000 });

    const handOver = `mutation ($c: ID!, $a: Int!, $k: String!) { adminRecordCodHandOver(courierId: $c, amount: $a, idempotencyKey: $k) {
      __typename ... on MutationAdminRecordCodHandOverSuccess { data { amount at lines { id bookingId amount } } } ${ERR} } }`;
    const one = (await g(handOver, { c: courier.id, a: 60_000, k: 'gh-1' })).adminRecordCodHandOver;
    const two = (await g(handOver, { c: courier.id, a: 60_000, k: 'gh-1' })).adminRecordCodHandOver;
    expect(one.data.lines).toMatchObject([{ bookingId: far, amount: 60_000 }]);
    expect(two).toEqual(one);
    expect((await g(handOver, { c: courier.id, a: 1, k: 'gh-1' })).adminRecordCodHandOver).toMatchObject({ __typename: 'AppError', code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await cash()).toMatchObject({ settled: 60_000, balance: 40_000 });

    const payOut = `mutation ($m: ID!, $a: Int!, $k: String!) { adminRecordCodPayout(merchantId: $m, amount: $a, idempotencyKey: $k) {
      __typename ... on MutationAdminRecordCodPayoutSuccess { data { id amount } } ${ERR} } }`;
    const p1 = (await g(payOut, { m: m.merchantId, a: 50_000, k: 'gp-1' })).adminRecordCodPayout;
    expect(p1.data).toMatchObject({ amount: 50_000 });
    expect((await g(payOut, { m: m.merchantId, a: 50_000, k: 'gp-1' })).adminRecordCodPayout).toEqual(p1);
    expect((await g(payOut, { m: m.merchantId, a: 10_001, k: 'gp-2' })).adminRecordCodPayout).toMatchObject({
      __typename: 'AppError', code: 'COD_PAYOUT_EXCEEDS_CASH', message: expect.stringContaining('paid out (10000 CLP)'),
    });
    const after = await report();
    expect(after).toMatchObject({
      collected: before.collected + 100_000, handed_over: before.handed_over + 60_000, settled: before.settled + 50_000,
      outstanding: before.outstanding + 50_000, payable: before.payable + 10_000, pending_confirmation: 0,
    });
    expect(after.lines.find((l: Wire) => l.booking_id === far)).toMatchObject({ status: 'confirmed', handed_over: 60_000 });
    const book = await t.app.container.store.ledger.listByMerchant({ merchantId: m.merchantId, mode: 'live' });
    expect(book.filter((e) => e.kind === 'cod_handover' && e.orderId === far)).toHaveLength(1);
  });
});
