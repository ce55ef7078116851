/**
 * OWASP API1:2023 Broken Object Level Authorization. Every path that names a resource — taken from
 * the OpenAPI document, so a new path is covered the day it is documented — answers 404 to another
 * merchant and to the same merchant's other mode, by every identifier kind, and changes nothing.
 * Courier paths: another courier (same or other mode) gets 404. GraphQL: every root field that
 * takes an id, likewise (also generated, from the schema).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSchema } from '../../schema/index.js';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { createCourier, expectOk, type CourierClient } from '../orders/support.js';
import { call, idTakingOperations, orderIdentifiers, pathWith, seedTenant, startSecurityApp, type Operation, type TenantResources } from './support.js';

/** Which identifiers of a tenant a path's parameter can name. */
function identifiersFor(op: Operation, r: TenantResources): string[] {
  const p = op.path;
  if (p.startsWith('/orders/') || p.startsWith('/sandbox/orders/') || p.startsWith('/couriers/me/orders/')) return orderIdentifiers(r);
  if (p.startsWith('/batches/')) return [r.batchId];
  if (p.startsWith('/webhooks/deliveries/')) return [r.deliveryId];
  if (p.startsWith('/webhooks/')) return [r.endpointId];
  return [];
}

/**
 * Public by design: any tracking number or order number is meant to be looked up without a key; a
 * hosted proof is served only through a signed, expiring link (test/courier-app/proofs.test.ts).
 */
// The stop link opens only with its capability (tested in test/orders/multi-stop.test.ts).
const PUBLIC_BY_REFERENCE = ['/tracking/{reference}', '/proofs/{id}', '/tracking/stops/{orderId}/{stopId}'];

describe('API1: object-level authorisation', () => {
  let t: TestApp;
  let a: MerchantCredentials;
  let b: MerchantCredentials;
  const aRes = {} as Record<'test' | 'live', TenantResources>;
  let bTest: TenantResources;
  let otherCourier: Record<'test' | 'live', CourierClient>;

  beforeAll(async () => {
    t = await startSecurityApp();
    a = await t.createMerchant({ name: 'Owner A' });
    b = await t.createMerchant({ name: 'Intruder B' });
    aRes.test = await seedTenant(t, a, 'test');
    aRes.live = await seedTenant(t, a, 'live');
    bTest = await seedTenant(t, b, 'test');
    otherCourier = { test: await createCourier(t, { mode: 'test' }), live: await createCourier(t, { mode: 'live' }) };
  });
  afterAll(() => t?.stop());

  /** A's resources as seen by their owner (to prove nothing moved). */
  async function snapshotOf(r: TenantResources) {
    const get = (path: string) => api(`${t.url}/api/v1${path}`, { key: r.key });
    const [order, events, batch, endpoint, delivery] = await Promise.all([
      get(`/orders/${r.order.booking_id}`),
      get(`/orders/${r.order.booking_id}/events`),
      get(`/batches/${r.batchId}`),
      get(`/webhooks/${r.endpointId}`),
      get(`/webhooks/deliveries/${r.deliveryId}`),
    ]);
    for (const res of [order, events, batch, endpoint, delivery]) expectOk(res);
    return {
      order: { status: order.body.status, cancellation: order.body.cancellation_reason },
      events: events.body.events.length,
      batch: batch.body.batch,
      endpoint: endpoint.body.endpoint,
      delivery: { status: delivery.body.delivery.status, attempts: delivery.body.delivery.attempts, next: delivery.body.delivery.next_attempt_at },
    };
  }

  it('knows every id-taking path of the OpenAPI document (a new one fails here until it is mapped)', () => {
    const ops = idTakingOperations();
    // The admin token's paths (/admin/cod/…) act across every merchant by design: no tenant to cross.
    const unmapped = ops.filter((op) => op.auth !== 'admin' && !PUBLIC_BY_REFERENCE.includes(op.path) && identifiersFor(op, aRes.test).length === 0);
    expect(unmapped.map((op) => `${op.method} ${op.path}`)).toEqual([]);
    expect(ops.length).toBeGreaterThanOrEqual(15);
  });

  it("another merchant's keys get 404 on every id-taking merchant path, by every identifier, and nothing changes", async () => {
    const ops = idTakingOperations().filter((op) => op.auth === 'merchant');
    for (const mode of ['test', 'live'] as const) {
      const before = await snapshotOf(aRes[mode]);
      for (const op of ops) {
        for (const id of identifiersFor(op, aRes[mode])) {
          for (const key of [b.testKey, b.liveKey]) {
            const res = await call(t, op, pathWith(op, id), { authorization: `Bearer ${key}` });
            const sandboxLive = op.path.startsWith('/sandbox/') && key === b.liveKey;
            const what = `${op.method} ${op.path} (${id}) with B's ${key === b.liveKey ? 'live' : 'test'} key → ${res.status} ${JSON.stringify(res.body)}`;
            // The sandbox refuses live keys before looking anything up (403 FORBIDDEN): nothing is revealed either way.
            expect(res.status, what).toBe(sandboxLive ? 403 : 404);
            expect(res.body.success, what).toBe(false);
            // The answer never carries another identifier of A's resource.
            for (const other of [...orderIdentifiers(aRes[mode]), aRes[mode].batchId, aRes[mode].endpointId].filter((v) => v !== id)) {
              expect(JSON.stringify(res.body), what).not.toContain(other);
            }
          }
        }
      }
      expect(await snapshotOf(aRes[mode]), `A's ${mode} resources after B's attempts`).toEqual(before);
    }
  });

  it("the same merchant's other mode gets 404 on every id-taking merchant path, and nothing changes", async () => {
    const ops = idTakingOperations().filter((op) => op.auth === 'merchant');
    for (const [mode, otherKey] of [['test', a.liveKey], ['live', a.testKey]] as const) {
      const before = await snapshotOf(aRes[mode]);
      for (const op of ops) {
        for (const id of identifiersFor(op, aRes[mode])) {
          const res = await call(t, op, pathWith(op, id), { authorization: `Bearer ${otherKey}` });
          const what = `${op.method} ${op.path} (${mode} ${id}) with A's other-mode key → ${res.status} ${JSON.stringify(res.body)}`;
          expect(res.status, what).toBe(op.path.startsWith('/sandbox/') && otherKey === a.liveKey ? 403 : 404);
        }
      }
      expect(await snapshotOf(aRes[mode])).toEqual(before);
    }
  });

  it("list filters that name another tenant's resource return nothing of it", async () => {
    for (const key of [b.testKey, b.liveKey, a.liveKey]) {
      const res = expectOk(await api(`${t.url}/api/v1/webhooks/deliveries?endpoint_id=${aRes.test.endpointId}`, { key }));
      expect(res.body.deliveries).toEqual([]);
    }
    expect(expectOk(await api(`${t.url}/api/v1/webhooks/deliveries?endpoint_id=${aRes.test.endpointId}`, { key: a.testKey })).body.deliveries.length).toBeGreaterThan(0);
  });

  it('the owner reaches every one of those paths (the 404s above are not a broken route)', async () => {
    for (const op of idTakingOperations().filter((o) => o.auth === 'merchant' && o.method === 'GET')) {
      const [id] = identifiersFor(op, aRes.test);
      const res = await call(t, op, pathWith(op, id!), { authorization: `Bearer ${aRes.test.key}` });
      expect(res.status, `${op.method} ${op.path}`).toBe(200);
    }
  });

  it("courier paths: a courier not assigned the order (same mode or other) gets 404, by every identifier; the assignee does not", async () => {
    const ops = idTakingOperations().filter((op) => op.auth === 'courier');
    expect(ops.length).toBeGreaterThanOrEqual(3);
    for (const op of ops) {
      for (const id of orderIdentifiers(aRes.test)) {
        for (const courier of [otherCourier.test, otherCourier.live, bTest.courier]) {
          // The proof upload checks the order before anything about the image: a valid kind reaches that check.
          const path = pathWith(op, id) + (op.path.endsWith('/proof') ? '?kind=photo' : '');
          const res = await call(t, op, path, { authorization: `Bearer ${courier.token}` });
          expect(res.status, `${op.method} ${op.path} (${id}) by courier ${courier.id} → ${JSON.stringify(res.body)}`).toBe(404);
        }
      }
    }
    // Still A's courier's order, untouched.
    const mine = expectOk(await aRes.test.courier.orders()).body.orders as Array<{ booking_id: string; status: string }>;
    expect(mine.find((o) => o.booking_id === aRes.test.order.booking_id)?.status).toBe('assigned');
  });

  describe('GraphQL', () => {
    /** Root fields with an id-like argument, from the schema: each must be exercised below. */
    const idFields = () => {
      const schema = buildSchema();
      return [schema.getQueryType()!, schema.getMutationType()!, schema.getSubscriptionType()!].flatMap((type) =>
        Object.values(type.getFields())
          .filter((f) => f.args.some((arg) => /^(id|merchantId|endpointId)$/.test(arg.name)))
          .map((f) => `${type.name}.${f.name}`),
      );
    };

    /** Documents acting on A's test resource `id`: what B (and A's live key) must not reach. */
    const DOCUMENTS: Record<string, (r: TenantResources) => { query: string; variables: Record<string, unknown> }> = {
      'Query.order': (r) => ({ query: 'query ($id: String!) { order(id: $id) { ... on AppError { code } ... on QueryOrderSuccess { data { id } } } }', variables: { id: r.order.tracking_number } }),
      'Query.batch': (r) => ({ query: 'query ($id: ID!) { batch(id: $id) { ... on AppError { code } ... on QueryBatchSuccess { data { id } } } }', variables: { id: r.batchId } }),
      'Query.webhookDelivery': (r) => ({ query: 'query ($id: ID!) { webhookDelivery(id: $id) { ... on AppError { code } ... on QueryWebhookDeliverySuccess { data { id } } } }', variables: { id: r.deliveryId } }),
      'Query.webhookDeliveries': (r) => ({ query: 'query ($id: ID) { webhookDeliveries(endpointId: $id) { ... on AppError { code } ... on QueryWebhookDeliveriesSuccess { data { id } } } }', variables: { id: r.endpointId } }),
      'Mutation.cancelOrder': (r) => ({ query: 'mutation ($id: String!) { cancelOrder(id: $id) { ... on AppError { code } ... on MutationCancelOrderSuccess { data { id } } } }', variables: { id: r.order.order_number } }),
      'Mutation.confirmDelivery': (r) => ({
        query: 'mutation ($id: String!, $input: ConfirmDeliveryInput!) { confirmDelivery(id: $id, input: $input) { ... on AppError { code } ... on MutationConfirmDeliverySuccess { data { id } } } }',
        variables: { id: r.order.booking_id, input: { driverId: r.courier.id, coords: { lat: -33.4, lng: -70.6 }, photoUrl: 'https://x.example/p.jpg', signatureUrl: 'https://x.example/s.png', bypass: true } },
      }),
      'Mutation.addTip': (r) => ({ query: 'mutation ($id: String!, $key: String!) { addTip(id: $id, amount: 100, idempotencyKey: $key) { ... on AppError { code } ... on MutationAddTipSuccess { data { id } } } }', variables: { id: r.order.reference_id, key: `api1-${r.order.booking_id}` } }),
      'Mutation.resetDeliveryPin': (r) => ({ query: 'mutation ($id: String!) { resetDeliveryPin(id: $id) { ... on AppError { code } ... on MutationResetDeliveryPinSuccess { data { id } } } }', variables: { id: r.order.booking_id } }),
      'Mutation.updateWebhookEndpoint': (r) => ({ query: 'mutation ($id: ID!) { updateWebhookEndpoint(id: $id, input: { enabled: false }) { ... on AppError { code } ... on MutationUpdateWebhookEndpointSuccess { data { id } } } }', variables: { id: r.endpointId } }),
      'Mutation.deleteWebhookEndpoint': (r) => ({ query: 'mutation ($id: ID!) { deleteWebhookEndpoint(id: $id) { ... on AppError { code } ... on MutationDeleteWebhookEndpointSuccess { data } } }', variables: { id: r.endpointId } }),
      'Mutation.redeliverWebhook': (r) => ({ query: 'mutation ($id: ID!) { redeliverWebhook(id: $id) { ... on AppError { code } ... on MutationRedeliverWebhookSuccess { data { id } } } }', variables: { id: r.deliveryId } }),
      'Subscription.orderStatusChanged': (r) => ({ query: 'subscription ($id: String!) { orderStatusChanged(id: $id) { orderId } }', variables: { id: r.order.booking_id } }),
      'Subscription.courierPosition': (r) => ({ query: 'subscription ($id: String!) { courierPosition(id: $id) { orderId } }', variables: { id: r.order.booking_id } }),
    };
    /** Courier fields: acted on by a courier that is not the assignee. */
    const COURIER_DOCUMENTS: Record<string, (r: TenantResources) => { query: string; variables: Record<string, unknown> }> = {
      'Mutation.courierAdvanceOrder': (r) => ({ query: 'mutation ($id: ID!) { courierAdvanceOrder(id: $id, status: arrived_pickup) { ... on AppError { code } ... on MutationCourierAdvanceOrderSuccess { data { id } } } }', variables: { id: r.order.booking_id } }),
      'Mutation.courierReleaseOrder': (r) => ({ query: 'mutation ($id: ID!) { courierReleaseOrder(id: $id) { ... on AppError { code } ... on MutationCourierReleaseOrderSuccess { data { id } } } }', variables: { id: r.order.tracking_number } }),
      'Mutation.courierConfirmDelivery': (r) => ({
        query: 'mutation ($id: ID!) { courierConfirmDelivery(id: $id, coords: { lat: -33.4, lng: -70.6 }, photoUrl: "https://x.example/p.jpg", signatureUrl: "https://x.example/s.png", bypass: true) { ... on AppError { code } ... on MutationCourierConfirmDeliverySuccess { data { id } } } }',
        variables: { id: r.order.order_number },
      }),
      'Mutation.courierReportFailedAttempt': (r) => ({
        query: 'mutation ($id: ID!) { courierReportFailedAttempt(id: $id, reason: other, coords: { lat: -33.4, lng: -70.6 }) { ... on AppError { code } ... on MutationCourierReportFailedAttemptSuccess { data { id } } } }',
        variables: { id: r.order.booking_id },
      }),
      'Mutation.courierConfirmReturn': (r) => ({
        query: 'mutation ($id: ID!) { courierConfirmReturn(id: $id, coords: { lat: -33.4, lng: -70.6 }, photoUrl: "https://x.example/p.jpg", signatureUrl: "https://x.example/s.png", bypass: true) { ... on AppError { code } ... on MutationCourierConfirmReturnSuccess { data { id } } } }',
        variables: { id: r.order.booking_id },
      }),
    };
    /** Admin fields name merchants by design (admin-only: API5 checks nobody else reaches them). */
    const ADMIN_BY_DESIGN = /^(Query|Mutation)\.admin/;

    /**
     * Team members are per merchant, not per mode (A's live key does reach A's members): their
     * cross-merchant refusals are checked with member sessions in test/members/roles.test.ts.
     */
    const COVERED_ELSEWHERE = ['Mutation.removeMember', 'Mutation.changeMemberRole', 'Mutation.resetMemberPassword'];

    it('every GraphQL root field that takes an id is covered here', () => {
      const covered = new Set([...Object.keys(DOCUMENTS), ...Object.keys(COURIER_DOCUMENTS), ...COVERED_ELSEWHERE]);
      expect(idFields().filter((f) => !covered.has(f) && !ADMIN_BY_DESIGN.test(f))).toEqual([]);
    });

    /** The result of a document: the AppError code, `data` (reached), or the top-level error code. */
    async function outcome(doc: { query: string; variables: Record<string, unknown> }, key: string): Promise<string> {
      if (doc.query.startsWith('subscription')) {
        const res = await fetch(`${t.url}/graphql`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'text/event-stream' },
          body: JSON.stringify(doc),
          signal: AbortSignal.timeout(2_000),
        }).catch(() => null);
        if (!res) return 'timeout';
        const text = await res.text().catch(() => 'stream');
        return /"code":"(\w+)"/.exec(text)?.[1] ?? 'data';
      }
      const res = await gql(t.url, doc.query, { key, variables: doc.variables });
      if (res.body.errors) return res.body.errors[0].extensions?.code ?? 'error';
      const field = Object.values(res.body.data as Record<string, unknown>)[0] as { code?: string; data?: unknown };
      if (field?.code) return field.code;
      return Array.isArray(field?.data) && field.data.length === 0 ? 'empty' : 'data';
    }

    it("B's keys and A's other-mode key get NOT_FOUND-type errors on A's resources", async () => {
      for (const [name, doc] of Object.entries(DOCUMENTS)) {
        for (const key of [b.testKey, b.liveKey, a.liveKey]) {
          const got = await outcome(doc(aRes.test), key);
          // webhookDeliveries(endpointId) of a foreign endpoint is an empty list or NOT_FOUND: never A's deliveries.
          expect(['ORDER_NOT_FOUND', 'NOT_FOUND', 'empty'], `${name} with ${key.slice(0, 8)}…`).toContain(got);
        }
      }
    });

    it('a courier that is not the assignee gets ORDER_NOT_FOUND on the courier mutations', async () => {
      for (const [name, doc] of Object.entries(COURIER_DOCUMENTS)) {
        for (const courier of [otherCourier.test, otherCourier.live, bTest.courier]) {
          expect(await outcome(doc(aRes.test), courier.token), `${name} by ${courier.id}`).toBe('ORDER_NOT_FOUND');
        }
      }
    });

    it("A's resources are untouched and A itself still reaches them", async () => {
      expect((await outcome(DOCUMENTS['Query.order']!(aRes.test), a.testKey))).toBe('data');
      expect((await outcome(DOCUMENTS['Query.batch']!(aRes.test), a.testKey))).toBe('data');
      expect((await outcome(DOCUMENTS['Query.webhookDelivery']!(aRes.test), a.testKey))).toBe('data');
      const endpoint = expectOk(await api(`${t.url}/api/v1/webhooks/${aRes.test.endpointId}`, { key: a.testKey })).body.endpoint;
      expect(endpoint.enabled).toBe(true);
      expect(expectOk(await api(`${t.url}/api/v1/orders/${aRes.test.order.booking_id}`, { key: a.testKey })).body.status).toBe('assigned');
    });
  });
});
