/**
 * Order creation's idempotency keys belong to the merchant and mode, whoever sends them (issue #26
 * item 4; README "Idempotency on every write"): the key names the order, so the integration's API
 * key and any dispatcher retrying it get one order. The member's role is checked before a replay.
 * Every other write keeps a record per member (test/members/roles.test.ts and the idempotency suites).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { PLACES, startOrdersApp } from '../orders/support.js';
import { gqlAs, signedIn } from './support.js';

const CREATE = `mutation ($key: String, $input: CreateOrderInput!) { createOrder(idempotencyKey: $key, input: $input) {
  __typename ... on MutationCreateOrderSuccess { data { id } } ... on AppError { code } } }`;
const input = (notes: string) => ({
  pickup: { address: 'Av. Providencia 1234', coords: PLACES.providencia },
  dropoff: { address: 'Av. Apoquindo 3000, Las Condes', coords: PLACES.lasCondes },
  customerName: 'Camila Rojas',
  customerPhone: '+56912345678',
  notes,
});

describe('order creation idempotency keys are the merchant’s, across members and API keys', () => {
  let t: TestApp;
  let shop: MerchantCredentials;
  let first: string;
  let second: string;
  let viewer: string;
  beforeAll(async () => {
    t = await startOrdersApp();
    shop = await t.createMerchant({ name: 'Key Scope Shop' });
    first = await signedIn(t, shop.merchantId, 'first@tienda.cl', 'dispatcher');
    second = await signedIn(t, shop.merchantId, 'second@tienda.cl', 'dispatcher');
    viewer = await signedIn(t, shop.merchantId, 'viewer@tienda.cl', 'viewer');
  });
  afterAll(() => t.stop());

  const createAs = (cookie: string | null, key: string, notes: string, headers: Record<string, string> = {}) =>
    gqlAs(t, cookie, CREATE, { variables: { key, input: input(notes) }, csrf: cookie !== null, headers });

  it('two dispatchers and the API key retrying one key get one order', async () => {
    const a = await createAs(first, 'shared-order-1', 'one');
    const b = await createAs(second, 'shared-order-1', 'one');
    const c = await createAs(null, 'shared-order-1', 'one', { authorization: `Bearer ${shop.testKey}` });
    const id = a.body.data.createOrder.data.id as string;
    expect(b.body.data.createOrder).toEqual({ __typename: 'MutationCreateOrderSuccess', data: { id } });
    expect(c.body.data.createOrder).toEqual({ __typename: 'MutationCreateOrderSuccess', data: { id } });
  });

  it('another order under the merchant’s key is refused, whoever sends it', async () => {
    await createAs(first, 'shared-order-2', 'two');
    expect((await createAs(second, 'shared-order-2', 'something else')).body.data.createOrder).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('a viewer’s retry of a dispatcher’s key is refused on its role, not replayed', async () => {
    await createAs(first, 'shared-order-3', 'three');
    expect((await createAs(viewer, 'shared-order-3', 'three')).body.data.createOrder).toMatchObject({ code: 'FORBIDDEN_ROLE' });
  });
});
