/**
 * Courier credentials can be rotated and revoked (disabled), effective at once on every entrance
 * that takes a courier token (REST, GraphQL over HTTP); a disabled courier drops out of dispatch.
 * Driven through the admin GraphQL mutations; the CLI commands are in test/cli/admin-cli.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { EVIDENCE, PLACES, courierOnDuty, createCourier, expectError, expectOk, formA, merchantApi, north, standDown } from '../orders/support.js';
import { startSecurityApp } from './support.js';

const ERR = '... on AppError { code message fields { field message } }';
const ROTATE = `mutation ($id: ID!) { adminRotateCourierToken(courierId: $id) {
  __typename ... on MutationAdminRotateCourierTokenSuccess { data { courierId token accountStatus } } ${ERR} } }`;
const DISABLE = `mutation ($id: ID!) { adminDisableCourier(courierId: $id) {
  __typename ... on MutationAdminDisableCourierSuccess { data { courierId accountStatus dutyStatus releasedOrderIds keptOrderIds } } ${ERR} } }`;
const ENABLE = `mutation ($id: ID!) { adminEnableCourier(courierId: $id) {
  __typename ... on MutationAdminEnableCourierSuccess { data { courierId accountStatus dutyStatus } } ${ERR} } }`;
const COURIER_QUERY = '{ courier { id status } }';

describe('courier credentials: rotation and disabling', () => {
  let t: TestApp;
  let m: MerchantCredentials;

  beforeAll(async () => {
    t = await startSecurityApp();
    m = await t.createMerchant({ name: 'Credentials Merchant' });
  });
  afterAll(() => t?.stop());

  async function admin(query: string, courierId: string) {
    const res = await gql(t.url, query, { key: ADMIN_TOKEN, variables: { id: courierId } });
    expect(res.status).toBe(200);
    const [result] = Object.values(res.body.data as Record<string, { __typename: string; data?: Record<string, unknown> }>);
    return result!;
  }

  /** The token is refused by REST and by GraphQL over HTTP, with the same 401. */
  async function expectRefused(token: string) {
    const rest = await fetch(`${t.url}/api/v1/couriers/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(rest.status).toBe(401);
    expect(((await rest.json()) as { error: { code: string } }).error.code).toBe('INVALID_COURIER_TOKEN');
    const graphql = await gql(t.url, COURIER_QUERY, { key: token });
    expect(graphql.status).toBe(401);
    expect(graphql.body.errors[0].extensions.code).toBe('INVALID_COURIER_TOKEN');
  }

  async function expectAccepted(token: string, courierId: string) {
    const rest = await fetch(`${t.url}/api/v1/couriers/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(rest.status).toBe(200);
    const graphql = await gql(t.url, COURIER_QUERY, { key: token });
    expect(graphql.body.data.courier.id).toBe(courierId);
  }

  it('adminRotateCourierToken: the new token works at once, the old one is refused at once', async () => {
    const courier = await createCourier(t, { mode: 'test' });
    await expectAccepted(courier.token, courier.id);

    const rotated = await admin(ROTATE, courier.id);
    expect(rotated).toEqual({
      __typename: 'MutationAdminRotateCourierTokenSuccess',
      data: { courierId: courier.id, token: expect.stringMatching(/^ct_[0-9A-Za-z]{40}$/), accountStatus: 'active' },
    });
    const token = rotated.data!.token as string;
    expect(token).not.toBe(courier.token);
    await expectRefused(courier.token);
    await expectAccepted(token, courier.id);

    // Rotating again retires the second token too.
    const again = await admin(ROTATE, courier.id);
    await expectRefused(token);
    await expectAccepted(again.data!.token as string, courier.id);
  });

  it('adminDisableCourier: refused everywhere, out of the geo index, its assigned order goes to the next courier', async () => {
    const orders = merchantApi(t, m.testKey);
    const near = await courierOnDuty(t, { mode: 'test', at: PLACES.providencia });
    const created = expectOk(await orders.create(formA()), 201).body;
    const id = created.booking_id as string;
    expect(expectOk(await orders.get(id)).body).toMatchObject({ status: 'assigned', driver: { id: near.id } });
    const next = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 2_000) });

    const disabled = await admin(DISABLE, near.id);
    expect(disabled).toEqual({
      __typename: 'MutationAdminDisableCourierSuccess',
      data: { courierId: near.id, accountStatus: 'disabled', dutyStatus: 'off_duty', releasedOrderIds: [id], keptOrderIds: [] },
    });
    await expectRefused(near.token);

    // Released (assigned → new, by the admin) and dispatched again to the other courier.
    const order = expectOk(await orders.get(id)).body;
    expect(order).toMatchObject({ status: 'assigned', driver: { id: next.id } });
    const events = expectOk(await orders.events(id)).body.events as Array<{ status: string }>;
    expect(events.map((e) => e.status)).toEqual(['new', 'assigned', 'new', 'assigned']);
    const stored = await t.app.container.store.couriers.findById(near.id);
    expect(stored).toMatchObject({ accountStatus: 'disabled', status: 'off_duty', job: null });
    const candidates = await t.app.container.geoIndex.nearest({ mode: 'test', vehicles: ['motorcycle'], point: PLACES.providencia, limit: 10 });
    expect(candidates.map((c) => c.courierId)).not.toContain(near.id);

    // New work never reaches it: with the other courier busy, the order waits in the queue.
    const queued = expectOk(await orders.create(formA()), 201).body.booking_id as string;
    expect(expectOk(await orders.get(queued)).body.status).toBe('new');
    expectOk(await orders.cancel(queued));
    expectOk(await orders.cancel(id));
    await standDown(next);
  });

  it('a courier holding a picked-up order keeps it and stays busy; enabling restores its token', async () => {
    const orders = merchantApi(t, m.liveKey);
    const courier = await courierOnDuty(t, { mode: 'live', at: PLACES.providencia });
    const id = expectOk(await orders.create(formA()), 201).body.booking_id as string;
    expectOk(await courier.status(id, 'picked_up'));

    const disabled = await admin(DISABLE, courier.id);
    expect(disabled.data).toEqual({ courierId: courier.id, accountStatus: 'disabled', dutyStatus: 'busy', releasedOrderIds: [], keptOrderIds: [id] });
    await expectRefused(courier.token);
    expect(expectOk(await orders.get(id)).body).toMatchObject({ status: 'picked_up', driver: { id: courier.id } });

    // A token rotated while disabled does not authenticate either, until the courier is enabled.
    const rotated = await admin(ROTATE, courier.id);
    expect(rotated.data).toMatchObject({ accountStatus: 'disabled' });
    const token = rotated.data!.token as string;
    await expectRefused(token);

    const enabled = await admin(ENABLE, courier.id);
    expect(enabled).toEqual({ __typename: 'MutationAdminEnableCourierSuccess', data: { courierId: courier.id, accountStatus: 'active', dutyStatus: 'busy' } });
    await expectAccepted(token, courier.id);
    await expectRefused(courier.token);
    expectOk(await api(`${t.url}/api/v1/couriers/me/orders/${id}/status`, { key: token, body: { status: 'arrived_dropoff' } }));
    expect(expectOk(await orders.get(id)).body.status).toBe('arrived_dropoff');

    // Disabled again; the merchant completes the kept order; enabled, the courier is off duty, not busy on a finished job.
    expect((await admin(DISABLE, courier.id)).data).toMatchObject({ dutyStatus: 'busy', keptOrderIds: [id] });
    expectOk(await orders.deliver(id, { driver_id: courier.id, coords: PLACES.lasCondes, ...EVIDENCE }));
    // Its job ended: a disabled courier is never made available, nor offered queued work; it goes off duty (issue #37).
    expect(await t.app.container.store.couriers.findById(courier.id)).toMatchObject({ status: 'off_duty', job: null });
    expect((await admin(ENABLE, courier.id)).data).toEqual({ courierId: courier.id, accountStatus: 'active', dutyStatus: 'off_duty' });
    expect(await t.app.container.store.couriers.findById(courier.id)).toMatchObject({ status: 'off_duty', job: null });
  });

  it('dispatch never claims a disabled courier, even before it is withdrawn; disabling twice is harmless', async () => {
    const courier = await courierOnDuty(t, { mode: 'test', at: PLACES.santiago });
    // The instant between the disable and the withdrawal: disabled, still available and in the geo index.
    await t.app.container.store.couriers.setAccountStatus({ id: courier.id, accountStatus: 'disabled', updatedAt: new Date().toISOString() });
    const orders = merchantApi(t, m.testKey);
    const id = expectOk(await orders.create(formA({ pickup: { address: 'Plaza de Armas', coords: PLACES.santiago } })), 201).body.booking_id as string;
    expect(expectOk(await orders.get(id)).body.status).toBe('new');
    expect(await t.app.container.store.couriers.findById(courier.id)).toMatchObject({ status: 'available', job: null });

    expect((await admin(DISABLE, courier.id)).data).toMatchObject({ accountStatus: 'disabled', dutyStatus: 'off_duty', releasedOrderIds: [] });
    expect((await admin(DISABLE, courier.id)).data).toMatchObject({ accountStatus: 'disabled', dutyStatus: 'off_duty' });
    expectError(await courier.duty(true), 401, 'INVALID_COURIER_TOKEN');
    const candidates = await t.app.container.geoIndex.nearest({ mode: 'test', vehicles: ['motorcycle'], point: PLACES.santiago, limit: 10 });
    expect(candidates.map((c) => c.courierId)).not.toContain(courier.id);
    expectOk(await orders.cancel(id));
  });

  it('unknown or malformed courier ids are typed errors; nothing but the admin token reaches the mutations', async () => {
    for (const query of [ROTATE, DISABLE, ENABLE]) {
      expect(await admin(query, 'cr_does_not_exist')).toMatchObject({ __typename: 'AppError', code: 'COURIER_NOT_FOUND' });
      expect(await admin(query, 'x'.repeat(65))).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR', fields: [{ field: 'courierId' }] });
      expect(await admin(query, '  ')).toMatchObject({ __typename: 'AppError', code: 'VALIDATION_ERROR' });
    }
    const courier = await createCourier(t, { mode: 'test' });
    for (const key of [courier.token, m.liveKey]) {
      const res = await gql(t.url, DISABLE, { key, variables: { id: courier.id } });
      expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
    }
    const none = await gql(t.url, DISABLE, { variables: { id: courier.id } });
    expect(none.status).toBe(401);
    await expectAccepted(courier.token, courier.id);
  });
});
