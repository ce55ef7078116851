import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MerchantCredentials, TestApp } from '../helpers/app.js';
import { PLACES, startOrdersApp } from '../orders/support.js';
import { gqlAs, signedIn } from './support.js';

const ERR = '... on AppError { code message }';
const CREATE = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { __typename ... on MutationCreateOrderSuccess { data { id } } ${ERR} } }`;
const CANCEL = `mutation ($id: String!, $key: String) { cancelOrder(id: $id, reason: "cliente desistió", idempotencyKey: $key) {
  __typename ... on MutationCancelOrderSuccess { data { id status } } ${ERR} } }`;
const ORDER = `query ($id: String!) { order(id: $id) { __typename ... on QueryOrderSuccess { data { id status } } ${ERR} } }`;

const orderInput = () => ({
  pickup: { address: 'Av. Providencia 1234', coords: PLACES.providencia },
  dropoff: { address: 'Av. Apoquindo 3000, Las Condes', coords: PLACES.lasCondes },
  customerName: 'Camila Rojas',
  customerPhone: '+56912345678',
});

/**
 * Idempotency keys are kept per team member: role checks run inside the write, so a record shared
 * by the merchant's members would let a viewer replay a dispatcher's answer, and a viewer's refusal
 * would block a dispatcher's retry for 24 h.
 */
describe('Team members: idempotency records are per member, role checks always run', () => {
  let t: TestApp;
  let shop: MerchantCredentials;
  let dispatcher: string;
  let viewer: string;
  beforeAll(async () => {
    t = await startOrdersApp();
    shop = await t.createMerchant({ name: 'Idempotent Team Shop' });
    [dispatcher, viewer] = await Promise.all([
      signedIn(t, shop.merchantId, 'dispatch@idem.cl', 'dispatcher'),
      signedIn(t, shop.merchantId, 'viewer@idem.cl', 'viewer'),
    ]);
  });
  afterAll(() => t.stop());

  const create = async () => {
    const created = (await gqlAs(t, dispatcher, CREATE, { variables: { input: orderInput() } })).body.data.createOrder;
    expect(created.__typename).toBe('MutationCreateOrderSuccess');
    return created.data.id as string;
  };
  const cancel = async (cookie: string, id: string, key: string) => (await gqlAs(t, cookie, CANCEL, { variables: { id, key } })).body.data.cancelOrder;

  it("a viewer repeating a dispatcher's key and request is refused (FORBIDDEN_ROLE), not given the dispatcher's answer", async () => {
    const id = await create();
    const done = await cancel(dispatcher, id, 'team-cancel-1');
    expect(done).toMatchObject({ __typename: 'MutationCancelOrderSuccess', data: { id, status: 'cancelled' } });
    expect(await cancel(viewer, id, 'team-cancel-1')).toMatchObject({ __typename: 'AppError', code: 'FORBIDDEN_ROLE' });
    // The dispatcher's own retry still replays its answer.
    expect(await cancel(dispatcher, id, 'team-cancel-1')).toEqual(done);
  });

  it("a dispatcher's retry after a viewer's refused attempt under the same key runs", async () => {
    const id = await create();
    expect(await cancel(viewer, id, 'team-cancel-2')).toMatchObject({ __typename: 'AppError', code: 'FORBIDDEN_ROLE' });
    // The refusal is not kept either: the viewer asking again is checked again.
    expect(await cancel(viewer, id, 'team-cancel-2')).toMatchObject({ __typename: 'AppError', code: 'FORBIDDEN_ROLE' });
    expect((await gqlAs(t, viewer, ORDER, { variables: { id } })).body.data.order.data.status).toBe('new');
    expect(await cancel(dispatcher, id, 'team-cancel-2')).toMatchObject({ __typename: 'MutationCancelOrderSuccess', data: { id, status: 'cancelled' } });
  });
});
