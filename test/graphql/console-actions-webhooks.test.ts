/**
 * Issue #19, console actions over GraphQL with a member session (the table is in
 * console-actions.test.ts): webhook endpoints, their delivery log, the payload viewer and
 * redelivery (one and a failed range), against a real receiver.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { startReceiver, startWebhooksApp, waitFor, type Receiver } from '../webhooks/support.js';
import { as, ERR, expectForbidden, orderInput, signInTeam, type Console } from './console-support.js';

const ENDPOINT_FIELDS = 'id url description events enabled';
const ENDPOINTS = `{ webhookEndpoints { ${ENDPOINT_FIELDS} } }`;
const CREATE_ENDPOINT = `mutation ($input: WebhookEndpointInput!) { createWebhookEndpoint(input: $input) {
  __typename ... on MutationCreateWebhookEndpointSuccess { data { ${ENDPOINT_FIELDS} } } ${ERR} } }`;
const UPDATE_ENDPOINT = `mutation ($id: ID!, $input: WebhookEndpointInput!) { updateWebhookEndpoint(id: $id, input: $input) {
  __typename ... on MutationUpdateWebhookEndpointSuccess { data { ${ENDPOINT_FIELDS} } } ${ERR} } }`;
const DELETE_ENDPOINT = `mutation ($id: ID!) { deleteWebhookEndpoint(id: $id) { __typename ... on MutationDeleteWebhookEndpointSuccess { data } ${ERR} } }`;
const DELIVERY_FIELDS = 'id endpointId event orderId status attempts payload lastStatusCode attemptLog { attempt statusCode error }';
const DELIVERIES = `query ($endpointId: ID, $status: WebhookDeliveryStatus, $from: DateTime, $to: DateTime) {
  webhookDeliveries(endpointId: $endpointId, status: $status, createdFrom: $from, createdTo: $to, first: 100) {
    __typename ... on QueryWebhookDeliveriesSuccess { data { ${DELIVERY_FIELDS} } } ${ERR} } }`;
const DELIVERY = `query ($id: ID!) { webhookDelivery(id: $id) { __typename ... on QueryWebhookDeliverySuccess { data { ${DELIVERY_FIELDS} } } ${ERR} } }`;
const REDELIVER = `mutation ($id: ID!) { redeliverWebhook(id: $id) { __typename ... on MutationRedeliverWebhookSuccess { data { id status } } ${ERR} } }`;
const REDELIVER_FAILED = `mutation ($from: DateTime!, $to: DateTime!) { redeliverFailedWebhooks(createdFrom: $from, createdTo: $to) {
  __typename ... on MutationRedeliverFailedWebhooksSuccess { data more } ${ERR} } }`;
const ROTATE_SECRET = `mutation ($hours: Float) { rotateApiSecret(overlapHours: $hours) {
  __typename ... on MutationRotateApiSecretSuccess { data { apiSecret previousExpiresAt } } ${ERR} } }`;
const CREATE_ORDER = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { __typename ... on MutationCreateOrderSuccess { data { id } } ${ERR} } }`;

/** Standard Webhooks: base64 HMAC-SHA256 of "<id>.<timestamp>.<body>" keyed with the secret's base64 part. */
const signatureWith = (secret: string, r: { id: string; timestamp: string; body: string }) =>
  `v1,${createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64')).update(`${r.id}.${r.timestamp}.${r.body}`).digest('base64')}`;

type Delivery = { id: string; endpointId: string; orderId: string; status: string; attempts: number; payload: string; attemptLog: Array<{ attempt: number; statusCode: number | null; error: string | null }> };

describe('Console actions over GraphQL with a member session: webhook endpoints, delivery log, payload viewer, redelivery', () => {
  let t: TestApp;
  let c: Console;
  let receiver: Receiver;
  let failing = true;
  const endpoints: Record<'ok' | 'fail', string> = { ok: '', fail: '' };
  const started = new Date(Date.now() - 60_000).toISOString();
  const later = () => new Date(Date.now() + 60_000).toISOString();
  beforeAll(async () => {
    // No retries: a 500 leaves the delivery failed at once (redelivery starts it over).
    t = await startWebhooksApp({ WEBHOOK_MAX_RETRIES: '0' });
    c = await signInTeam(t, 'hooks');
    receiver = await startReceiver();
    receiver.respond((r) => (r.path === '/fail' && failing ? 500 : 200));
  });
  afterAll(async () => {
    await t.stop();
    await receiver.close();
  });

  const list = async (cookie: string, mode: 'live' | 'test' = 'test') => (await as(t, cookie, ENDPOINTS, { mode })) as Array<{ id: string; url: string; description: string | null }>;
  const log = async (cookie: string, filter: Record<string, unknown> = {}, mode: 'live' | 'test' = 'test') => {
    const res = await as(t, cookie, DELIVERIES, { variables: filter, mode });
    expect(res.__typename).toBe('QueryWebhookDeliveriesSuccess');
    return res.data as Delivery[];
  };
  const one = async (cookie: string, id: string, mode: 'live' | 'test' = 'test') => as(t, cookie, DELIVERY, { variables: { id }, mode });
  /** A test order: its `new` status is one webhook per endpoint. */
  const newOrder = async () => (await as(t, c.dispatcher, CREATE_ORDER, { variables: { input: orderInput() } })).data.id as string;

  it('endpoints: only the owner creates, updates and deletes (the refusals change nothing); every role lists them; modes apart', async () => {
    const input = { url: `${receiver.url}/ok`, description: 'tienda' };
    for (const [cookie, role] of [[c.viewer, 'viewer'], [c.dispatcher, 'dispatcher']] as const) {
      expectForbidden(await as(t, cookie, CREATE_ENDPOINT, { variables: { input } }), role);
    }
    expect(await list(c.owner)).toEqual([]);

    const created = await as(t, c.owner, CREATE_ENDPOINT, { variables: { input } });
    expect(created.data).toMatchObject({ url: input.url, description: 'tienda', enabled: true });
    const id = created.data.id as string;
    const live = (await as(t, c.owner, CREATE_ENDPOINT, { variables: { input: { url: 'https://93.184.215.14/exd' } }, mode: 'live' })).data.id as string;
    for (const cookie of [c.viewer, c.dispatcher, c.owner]) {
      expect((await list(cookie)).map((e) => e.id)).toEqual([id]);
      expect((await list(cookie, 'live')).map((e) => e.id)).toEqual([live]);
    }
    expect(await list(c.rivalOwner)).toEqual([]);

    const patch = { description: 'cambiada', events: ['ORDER_STATUS_CHANGED'] };
    for (const [cookie, role] of [[c.viewer, 'viewer'], [c.dispatcher, 'dispatcher']] as const) {
      expectForbidden(await as(t, cookie, UPDATE_ENDPOINT, { variables: { id, input: patch } }), role);
      expectForbidden(await as(t, cookie, DELETE_ENDPOINT, { variables: { id } }), role);
    }
    expect((await as(t, c.owner, UPDATE_ENDPOINT, { variables: { id, input: patch }, mode: 'live' })).code).toBe('NOT_FOUND');
    expect((await as(t, c.owner, DELETE_ENDPOINT, { variables: { id }, mode: 'live' })).code).toBe('NOT_FOUND');
    expect((await list(c.viewer))[0]).toMatchObject({ id, description: 'tienda' });

    expect((await as(t, c.owner, UPDATE_ENDPOINT, { variables: { id, input: patch } })).data).toMatchObject({ id, description: 'cambiada', events: ['ORDER_STATUS_CHANGED'] });
    expect((await list(c.viewer))[0]).toMatchObject({ id, description: 'cambiada', events: ['ORDER_STATUS_CHANGED'] });
    expect((await as(t, c.owner, DELETE_ENDPOINT, { variables: { id } })).data).toBe(true);
    expect(await list(c.viewer)).toEqual([]);
    expect((await list(c.viewer, 'live')).map((e) => e.id)).toEqual([live]);
  });

  it('delivery log and payload viewer: every role reads the log (endpoint, status and time filters) and one delivery with its body and attempts; modes apart', async () => {
    endpoints.ok = (await as(t, c.owner, CREATE_ENDPOINT, { variables: { input: { url: `${receiver.url}/ok` } } })).data.id;
    endpoints.fail = (await as(t, c.owner, CREATE_ENDPOINT, { variables: { input: { url: `${receiver.url}/fail` } } })).data.id;
    const orderId = await newOrder();
    const settled = await waitFor(async () => {
      const mine = (await log(c.viewer)).filter((d) => d.orderId === orderId);
      return mine.length === 2 && mine.every((d) => d.status !== 'pending') && mine;
    }, { what: "the order's two deliveries to settle" });

    const delivered = settled.find((d) => d.endpointId === endpoints.ok)!;
    const failed = settled.find((d) => d.endpointId === endpoints.fail)!;
    expect(delivered).toMatchObject({ status: 'delivered', attempts: 1, lastStatusCode: 200, attemptLog: [{ attempt: 1, statusCode: 200, error: null }] });
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: 500, attemptLog: [{ attempt: 1, statusCode: 500, error: 'HTTP 500' }] });

    for (const cookie of [c.viewer, c.dispatcher, c.owner]) {
      expect((await log(cookie, { endpointId: endpoints.ok })).map((d) => d.id)).toEqual([delivered.id]);
      expect((await log(cookie, { status: 'failed' })).map((d) => d.id)).toEqual([failed.id]);
      expect((await log(cookie, { from: started, to: later() })).map((d) => d.id).sort()).toEqual([delivered.id, failed.id].sort());
      expect(await log(cookie, { from: later(), to: new Date(Date.now() + 120_000).toISOString() })).toEqual([]);
    }
    // Pages: `after` is the last id of the previous page.
    const page = `query ($after: ID) { webhookDeliveries(first: 1, after: $after) { ... on QueryWebhookDeliveriesSuccess { data { id } } } }`;
    const [p1] = (await as(t, c.viewer, page)).data as Array<{ id: string }>;
    const [p2] = (await as(t, c.viewer, page, { variables: { after: p1!.id } })).data as Array<{ id: string }>;
    expect([p1!.id, p2!.id].sort()).toEqual([delivered.id, failed.id].sort());

    // The payload viewer shows the body exactly as the receiver got it, and every attempt.
    const viewed = (await one(c.viewer, delivered.id)).data as Delivery;
    expect(viewed.payload).toBe(receiver.of(delivered.id)[0]!.body);
    expect(JSON.parse(viewed.payload)).toMatchObject({ event: 'order.status_changed', booking_id: orderId, status: 'new' });
    expect((await one(c.viewer, failed.id)).data.attemptLog).toEqual([{ attempt: 1, statusCode: 500, error: 'HTTP 500' }]);

    expect(await log(c.viewer, {}, 'live')).toEqual([]);
    expect((await one(c.viewer, delivered.id, 'live')).code).toBe('NOT_FOUND');
    expect((await one(c.rivalOwner, delivered.id)).code).toBe('NOT_FOUND');
  });

  it('redeliver one: a viewer is refused and nothing is sent; a dispatcher redelivers with the same webhook-id', async () => {
    const [failed] = await log(c.viewer, { status: 'failed' });
    const received = receiver.of(failed!.id).length;
    failing = false;
    expectForbidden(await as(t, c.viewer, REDELIVER, { variables: { id: failed!.id } }), 'viewer');
    expect((await as(t, c.dispatcher, REDELIVER, { variables: { id: failed!.id }, mode: 'live' })).code).toBe('NOT_FOUND');
    await new Promise((r) => setTimeout(r, 300)); // a few worker polls
    expect((await one(c.viewer, failed!.id)).data).toMatchObject({ status: 'failed', attempts: 1 });
    expect(receiver.of(failed!.id)).toHaveLength(received);

    expect((await as(t, c.dispatcher, REDELIVER, { variables: { id: failed!.id } })).data).toEqual({ id: failed!.id, status: 'pending' });
    const after = await waitFor(async () => {
      const d = (await one(c.viewer, failed!.id)).data as Delivery;
      return d.status === 'delivered' && d;
    }, { what: 'the redelivery' });
    expect(after.attemptLog.map((a) => a.statusCode)).toEqual([500, 200]);
    expect(receiver.of(failed!.id).map((r) => r.status)).toEqual([500, 200]);
  });

  it('redeliver the failed range: a viewer is refused, the live session requeues none of the test deliveries, a dispatcher requeues them', async () => {
    failing = true;
    const orderId = await newOrder();
    const failed = await waitFor(async () => (await log(c.viewer, { status: 'failed' })).find((d) => d.orderId === orderId), { what: 'a failed delivery' });
    const range = { from: started, to: later() };
    failing = false;

    expectForbidden(await as(t, c.viewer, REDELIVER_FAILED, { variables: range }), 'viewer');
    expect(await as(t, c.dispatcher, REDELIVER_FAILED, { variables: range, mode: 'live' })).toMatchObject({ data: 0, more: false });
    await new Promise((r) => setTimeout(r, 300));
    expect((await one(c.viewer, failed.id)).data.status).toBe('failed');

    expect(await as(t, c.dispatcher, REDELIVER_FAILED, { variables: range })).toEqual({ __typename: 'MutationRedeliverFailedWebhooksSuccess', data: 1, more: false });
    await waitFor(async () => (await one(c.viewer, failed.id)).data.status === 'delivered', { what: 'the requeued delivery' });
    expect(await log(c.viewer, { status: 'failed' })).toEqual([]);
    expect(receiver.of(failed.id).map((r) => r.status)).toEqual([500, 200]);
  });

  it('signing-secret rotation: a viewer or dispatcher is refused (webhooks stay signed with the secret); the owner rotates and the next webhook is signed with the new one', async () => {
    /** The webhook of a new order as the /ok receiver got it, and the signatures it carried. */
    const nextWebhook = async () => {
      const orderId = await newOrder();
      const receipt = await waitFor(() => receiver.receipts.find((r) => r.path === '/ok' && (JSON.parse(r.body) as { booking_id?: string }).booking_id === orderId), { what: "the order's webhook" });
      return { receipt, signatures: receipt.signature.split(' ') };
    };
    for (const [cookie, role] of [[c.viewer, 'viewer'], [c.dispatcher, 'dispatcher']] as const) {
      expectForbidden(await as(t, cookie, ROTATE_SECRET, { variables: { hours: 0 } }), role);
    }
    const first = await nextWebhook();
    expect(first.signatures).toEqual([signatureWith(c.shop.apiSecret, first.receipt)]);

    const rotated = await as(t, c.owner, ROTATE_SECRET, { variables: { hours: 0 } });
    expect(rotated.data.apiSecret).toMatch(/^whsec_/);
    expect(rotated.data.apiSecret).not.toBe(c.shop.apiSecret);
    const second = await nextWebhook();
    expect(second.signatures).toEqual([signatureWith(rotated.data.apiSecret, second.receipt)]);
  });
});
