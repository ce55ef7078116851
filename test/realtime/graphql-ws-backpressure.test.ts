import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { MerchantCredentials, TestApp } from '../helpers/app.js';
import { expectOk, PLACES, startOrdersApp } from '../orders/support.js';
import { along, assignedOrder, until } from './support.js';

const TRACKING = 'subscription ($ref: String!) { tracking(reference: $ref) { status location { lat lng } } }';
const SUBSCRIPTIONS = 400;
const REPORTS = 80;

/**
 * Shared anonymous results are written straight to the socket while it keeps up; once its send
 * buffer is past the soft limit they take graphql-ws's own path (one write at a time, a bounded
 * queue per operation). A client that stops reading must still get every operation's events in
 * order, as exact graphql-ws frames, and none twice.
 */
describe('graphql-ws: a subscriber that falls behind', () => {
  let t: TestApp;
  let shop: MerchantCredentials;
  let client: Client;

  beforeAll(async () => {
    t = await startOrdersApp({ env: { TRACKING_HEARTBEAT_MS: '60000', MAX_SUBSCRIPTIONS_PER_SOCKET: String(SUBSCRIPTIONS) } });
    shop = await t.createMerchant({ name: 'Backpressure Shop' });
  });
  afterAll(async () => {
    await client?.dispose();
    await t.stop();
  });

  it('gets its events in order, as graphql-ws frames, after its socket was backed up past the soft limit', async () => {
    const { order, courier, pickup } = await assignedOrder(t, shop.liveKey);
    const frames: string[] = [];
    /** The client's TCP socket (ws keeps it as _socket). */
    let tcp!: () => { pause(): void; resume(): void };
    let id = 0;
    client = createClient({
      url: `${t.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: class extends WebSocket {
        constructor(url: string, protocols?: string | string[]) {
          super(url, protocols);
          tcp = () => (this as unknown as { _socket: { pause(): void; resume(): void } })._socket;
          this.on('message', (data) => frames.push(String(data)));
        }
      },
      generateID: () => `s${++id}`,
      retryAttempts: 0,
      lazy: false,
      onNonLazyError: () => {},
    });
    for (let i = 0; i < SUBSCRIPTIONS; i++) client.subscribe({ query: TRACKING, variables: { ref: order.tracking_number } }, { next: () => {}, error: () => {}, complete: () => {} });
    const { fanOut } = t.app.container;
    await until(() => fanOut.sizes().sinks === 1 && t.app.container.services.tracking.watchedOrders() === 1, 'the watch');
    await new Promise((resolve) => setTimeout(resolve, 300)); // every operation subscribed

    // The client stops reading: the kernel's buffers fill, then the server's send buffer.
    tcp().pause();
    const points = Array.from({ length: REPORTS }, (_, i) => along(pickup, PLACES.lasCondes, 0.1 + (0.8 * i) / REPORTS));
    for (const point of points) expectOk(await courier.position(point));
    tcp().resume();

    const lastFrame = (n: number) => `{"id":"s${n}","type":"next","payload":{"data":{"tracking":{"status":"assigned","location":${JSON.stringify(points.at(-1))}}}}}`;
    await until(() => Array.from({ length: SUBSCRIPTIONS }, (_, i) => lastFrame(i + 1)).every((f) => frames.includes(f)), 'every operation to get the last report', 30_000);

    const byOperation = new Map<string, number[]>();
    for (const frame of frames.slice(1)) {
      const message = JSON.parse(frame) as { id: string; type: string; payload: { data: { tracking: { location: { lat: number; lng: number } } } } };
      expect(message.type).toBe('next');
      const index = points.findIndex((p) => p.lat === message.payload.data.tracking.location.lat);
      expect(frame).toBe(`{"id":"${message.id}","type":"next","payload":{"data":{"tracking":{"status":"assigned","location":${JSON.stringify(points[index])}}}}}`);
      byOperation.set(message.id, [...(byOperation.get(message.id) ?? []), index]);
    }
    expect(byOperation.size).toBe(SUBSCRIPTIONS);
    for (const indexes of byOperation.values()) {
      // In order and none twice; a queue past its bound loses its oldest, never the newest.
      expect(indexes).toEqual([...new Set(indexes)].sort((a, b) => a - b));
      expect(indexes.at(-1)).toBe(REPORTS - 1);
    }
  }, 60_000);
});
