import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { MerchantCredentials, TestApp } from '../helpers/app.js';
import { expectOk, PLACES, startOrdersApp } from '../orders/support.js';
import { along, assignedOrder, until } from './support.js';

const TRACKING = 'subscription ($ref: String!) { tracking(reference: $ref) { reference status location { lat lng } at } }';

/**
 * The exact text of every frame the server sends over graphql-ws, byte for byte: the shared
 * anonymous path (one serialisation per event) must write what graphql-ws itself would write, and
 * authenticated results, errors and completes keep graphql-ws's own path.
 */
describe('graphql-ws: the frames on the wire', () => {
  let t: TestApp;
  let shop: MerchantCredentials;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startOrdersApp({ env: { TRACKING_HEARTBEAT_MS: '60000' } });
    shop = await t.createMerchant({ name: 'Wire Shop' });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await t.stop();
  });

  /** A graphql-ws client whose operation ids are given in order, recording every text frame it receives. */
  function recording(ids: string[], connectionParams?: Record<string, unknown>) {
    const frames: string[] = [];
    const queue = [...ids];
    const client = createClient({
      url: `${t.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: class extends WebSocket {
        constructor(url: string, protocols?: string | string[]) {
          super(url, protocols);
          this.on('message', (data) => frames.push(String(data)));
        }
      },
      ...(connectionParams && { connectionParams }),
      generateID: () => queue.shift()!,
      retryAttempts: 0,
      lazy: false,
      onNonLazyError: () => {},
    });
    clients.push(client);
    const start = (query: string, variables?: Record<string, unknown>) =>
      client.subscribe({ query, ...(variables && { variables }) }, { next: () => {}, error: () => {}, complete: () => {} });
    /** The frames of one operation, as sent. */
    const of = (id: string) => frames.filter((f) => (JSON.parse(f) as { id?: string }).id === id);
    return { frames, start, of };
  }

  it('sends anonymous (shared) and merchant results, errors and completes exactly as graphql-ws does', async () => {
    const { order, courier, pickup } = await assignedOrder(t, shop.liveKey);
    const anonymous = recording(['t1', 't2', 'bad', 'refused', 'query', 'gone']);
    const merchant = recording(['status', 'position'], { authorization: `Bearer ${shop.liveKey}` });
    const sinks = t.app.container.fanOut.sizes().sinks;

    anonymous.start(TRACKING, { ref: order.tracking_number });
    anonymous.start(TRACKING, { ref: order.tracking_number });
    anonymous.start('subscription { nope }');
    anonymous.start('subscription { orderEvents { orderId } }');
    anonymous.start('{ __typename }');
    const gone = anonymous.start(TRACKING, { ref: order.order_number });
    merchant.start('subscription ($id: String!) { orderStatusChanged(id: $id) { orderId from status sequence at order { id status } } }', { id: order.booking_id });
    merchant.start('subscription ($id: String!) { courierPosition(id: $id) { orderId location { lat lng } at } }', { id: order.booking_id });
    await until(() => t.app.container.fanOut.sizes().sinks >= sinks + 3 && t.app.container.services.tracking.watchedOrders() === 1, 'the watches');
    gone(); // completed by the client: the server answers nothing and sends it nothing more
    await until(() => anonymous.of('refused').length === 2 && anonymous.of('query').length === 2 && anonymous.of('bad').length === 1, 'the refusals');

    const point = along(pickup, PLACES.lasCondes, 0.3);
    expectOk(await courier.position(point));
    expectOk(await courier.status(order.booking_id, 'arrived_pickup'));
    await until(() => anonymous.of('t2').length === 2 && merchant.of('status').length === 1 && merchant.of('position').length === 1, 'the events');

    expect(anonymous.frames[0]).toBe('{"type":"connection_ack"}');
    expect(merchant.frames[0]).toBe('{"type":"connection_ack"}');
    expect(anonymous.of('gone')).toEqual([]);

    const atOf = (frame: string | undefined) => (JSON.parse(frame!) as { payload: { data: Record<string, { at: string }> } }).payload.data;
    const [moved, arrived] = anonymous.of('t1');
    const tracking = (id: string, at: string, status: string, location: unknown) =>
      `{"id":"${id}","type":"next","payload":{"data":{"tracking":{"reference":"${order.tracking_number}","status":"${status}","location":${JSON.stringify(location)},"at":"${at}"}}}}`;
    const positionAt = atOf(moved).tracking!.at;
    const statusAt = atOf(arrived).tracking!.at;
    for (const id of ['t1', 't2']) {
      expect(anonymous.of(id)).toEqual([tracking(id, positionAt, 'assigned', { lat: point.lat, lng: point.lng }), tracking(id, statusAt, 'arrived_pickup', null)]);
    }

    expect(anonymous.of('bad')).toEqual([
      '{"id":"bad","type":"error","payload":[{"message":"Cannot query field \\"nope\\" on type \\"Subscription\\".","locations":[{"line":1,"column":16}],"extensions":{"code":"GRAPHQL_VALIDATION_FAILED","http":{"spec":true,"status":400}}}]}',
    ]);
    expect(anonymous.of('refused')).toEqual([
      '{"id":"refused","type":"next","payload":{"errors":[{"message":"Credentials missing or invalid","locations":[{"line":1,"column":16}],"path":["orderEvents"],"extensions":{"code":"INVALID_API_KEY","http":{"status":401}}}]}}',
      '{"id":"refused","type":"complete"}',
    ]);
    expect(anonymous.of('query')).toEqual(['{"id":"query","type":"next","payload":{"data":{"__typename":"Query"}}}', '{"id":"query","type":"complete"}']);

    const statusChange = atOf(merchant.of('status')[0]).orderStatusChanged!;
    expect(merchant.of('status')).toEqual([
      `{"id":"status","type":"next","payload":{"data":{"orderStatusChanged":{"orderId":"${order.booking_id}","from":"assigned","status":"arrived_pickup","sequence":3,"at":"${statusChange.at}","order":{"id":"${order.booking_id}","status":"arrived_pickup"}}}}}`,
    ]);
    expect(merchant.of('position')).toEqual([
      `{"id":"position","type":"next","payload":{"data":{"courierPosition":{"orderId":"${order.booking_id}","location":${JSON.stringify({ lat: point.lat, lng: point.lng })},"at":"${positionAt}"}}}}`,
    ]);
  });
});
