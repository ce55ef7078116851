/**
 * order.tip_added (issue #30 item 4): delivered to subscribed endpoints in both payload shapes,
 * signed per Standard Webhooks and verified with the independent `standardwebhooks` library, the
 * body checked against the served OpenAPI document by the receiver — on SQLite and on MongoDB.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type TestApp } from '../helpers/app.js';
import { appStores } from '../helpers/mongo.js';
import { expectOk, formA, merchantApi } from '../orders/support.js';
import { startReceiver, startWebhooksApp, waitFor, webhooksApi, type Receiver } from './support.js';

let t: TestApp;
let receiver: Receiver;

const STORES = await appStores('tiphooks');

describe.each(STORES)('order.tip_added on %s', (_store, env) => {
  beforeAll(async () => {
    t = await startWebhooksApp(env);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t?.stop();
    await receiver?.close();
  });

  it('goes to the endpoints subscribed to it, in each one\'s shape, with the amount, the total and the order\'s current sequence; it verifies with the API secret', async () => {
    const m = await t.createMerchant({ name: 'Tip Webhooks' });
    const hooks = webhooksApi(t.url, m.testKey);
    expectOk(await hooks.create({ url: `${receiver.url}/tips-event`, events: ['order.tip_added'] }), 201);
    expectOk(await hooks.create({ url: `${receiver.url}/tips-flat`, events: ['order.tip_added'], payload_shape: 'flat' }), 201);
    expectOk(await hooks.create({ url: `${receiver.url}/tips-status-only`, events: ['order.status_changed'] }), 201);
    const orders = merchantApi(t, m.testKey);
    const id = expectOk(await orders.create(formA({ tip: 1000 })), 201).body.booking_id as string;
    const order = expectOk(await orders.get(id)).body;
    const added = await api(`${t.url}/api/v1/orders/${id}/tip`, { key: m.testKey, body: { amount: 2500 }, headers: { 'idempotency-key': `tip-hook-${id}` } });
    expectOk(added);

    const at = (path: string) => receiver.receipts.filter((r) => r.path === path && r.event === 'order.tip_added');
    const [event] = await waitFor(() => at('/tips-event').length >= 1 && at('/tips-event'), { what: 'the event-shape delivery' });
    const [flat] = await waitFor(() => at('/tips-flat').length >= 1 && at('/tips-flat'), { what: 'the flat-shape delivery' });
    for (const receipt of [event!, flat!]) {
      expect(new Webhook(m.apiSecret).verify(receipt.body, receipt.headers)).toEqual(JSON.parse(receipt.body));
      expect(receipt.signature).toMatch(/^v1,/);
    }
    // The order's history has one event per transition; the tip adds none, so the sequence is the order's current one.
    const sequence = (expectOk(await orders.events(id)).body.events as Array<{ sequence: number }>).at(-1)!.sequence;
    expect(JSON.parse(event!.body)).toEqual({
      event: 'order.tip_added', booking_id: id, status: order.status, timestamp: expect.any(String), driver: null, sequence,
      tip: { amount: 2500, total: 3500, currency: 'CLP' },
    });
    expect(JSON.parse(flat!.body)).toMatchObject({ booking_id: id, order_id: Number(order.order_number), sequence, tip: { amount: 2500, total: 3500, currency: 'CLP' } });
    // The tip set at creation has no event of its own; an endpoint not subscribed gets none.
    expect(at('/tips-event')).toHaveLength(1);
    expect(receiver.receipts.filter((r) => r.path === '/tips-status-only' && r.event === 'order.tip_added')).toEqual([]);
    expectOk(await orders.cancel(id));
  });
});
