import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MerchantCredentials, TestApp } from '../helpers/app.js';
import { expectOk, PLACES, startOrdersApp } from '../orders/support.js';
import { along, assignedOrder, until } from '../realtime/support.js';
import { wsClient } from '../security/front-door/support.js';

const TRACKING = 'subscription ($ref: String!) { tracking(reference: $ref) { reference status location { lat lng } at } }';

/**
 * Anonymous subscribers of one order share each event's execution (schema/shared-execution.ts):
 * what each one receives must still be exactly its own answer.
 */
describe('GraphQL: anonymous subscriptions share event execution without mixing answers', () => {
  let t: TestApp;
  let shop: MerchantCredentials;
  const sockets: Array<ReturnType<typeof wsClient>> = [];
  beforeAll(async () => {
    t = await startOrdersApp({ env: { TRACKING_HEARTBEAT_MS: '60000' } });
    shop = await t.createMerchant({ name: 'Shared Events Shop' });
  });
  afterAll(async () => {
    await Promise.all(sockets.map((s) => s.dispose()));
    await t.stop();
  });

  it('same document and variables get the same result; another reference or document gets its own', async () => {
    const { order, courier, pickup } = await assignedOrder(t, shop.liveKey);
    const open = (query: string, ref: string) => {
      const socket = wsClient(t.url);
      sockets.push(socket);
      return socket.start(query, { ref });
    };
    const byTracking = [open(TRACKING, order.tracking_number), open(TRACKING, order.tracking_number)];
    const byNumber = open(TRACKING, order.order_number);
    const otherShape = open('subscription ($ref: String!) { tracking(reference: $ref) { status } }', order.tracking_number);
    const merchant = wsClient(t.url, { authorization: `Bearer ${shop.liveKey}` });
    sockets.push(merchant);
    const positions = merchant.start(`subscription { courierPosition(id: "${order.booking_id}") { orderId location { lat lng } } }`);
    await until(() => t.app.container.services.tracking.watchedOrders() === 1 && t.app.container.fanOut.sizes().sinks >= 2, 'the watches');
    await new Promise((resolve) => setTimeout(resolve, 200));

    const point = along(pickup, PLACES.lasCondes, 0.3);
    expectOk(await courier.position(point));
    const all = [...byTracking, byNumber, otherShape, positions];
    await until(() => all.every((o) => o.results.length >= 1), 'every subscriber to get the position');

    const expected = { reference: order.tracking_number, status: 'assigned', location: point };
    expect(byTracking.map((o) => o.results[0]!.data!.tracking)).toEqual([expect.objectContaining(expected), expect.objectContaining(expected)]);
    expect(byNumber.results[0]!.data!.tracking).toMatchObject({ reference: order.order_number, status: 'assigned', location: point });
    expect(otherShape.results[0]!.data).toEqual({ tracking: { status: 'assigned' } });
    expect(positions.results[0]!.data).toEqual({ courierPosition: { orderId: order.booking_id, location: point } });
    expect(all.every((o) => o.errors.length === 0)).toBe(true);
  });
});
