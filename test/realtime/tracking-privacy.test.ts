import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { trackingResponseSchema } from '../../rest/openapi/responses-tracking.js';
import { api, type TestApp } from '../helpers/app.js';
import { courierOnDuty, expectOk, expectWireShape, merchantApi, PLACES, startOrdersApp } from '../orders/support.js';
import { along, openLive, until } from './support.js';

const APOQUINDO = readFileSync(new URL('../fixtures/nominatim/apoquindo-3000-las-condes.json', import.meta.url), 'utf8');
/** Street-level parts of the fixture's display_name ("3000, Avenida Apoquindo, El Golf, Las Condes, …"). */
const STREET_TEXT = ['Apoquindo', 'Avenida', 'El Golf', '7550000', 'Provincia'];
const streetTextIn = (text: string) => STREET_TEXT.filter((fragment) => text.includes(fragment));

/**
 * With a Nominatim geocoder the stored drop-off label is the geocoder's full display text; the
 * public tracking channels (REST, the live socket's snapshot, the GraphQL subscription) name the
 * drop-off by its comuna only.
 */
describe('public tracking with the Nominatim geocoder', () => {
  let nominatim: Server;
  let t: TestApp;
  let client: Client;

  beforeAll(async () => {
    nominatim = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(APOQUINDO));
    await new Promise<void>((resolve) => nominatim.listen(0, '127.0.0.1', resolve));
    t = await startOrdersApp({ env: { GEOCODER_URL: `http://127.0.0.1:${(nominatim.address() as AddressInfo).port}` } });
    client = createClient({ url: `${t.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: true });
  });
  afterAll(async () => {
    await client.dispose();
    await t.stop();
    nominatim.closeAllConnections();
    await new Promise((resolve) => nominatim.close(resolve));
  });

  it('shows the comuna, never the street text, on REST, the socket snapshot and the GraphQL subscription', async () => {
    const m = await t.createMerchant({ name: 'Geocoded Shop' });
    const pickup = { lat: PLACES.providencia.lat - 0.01, lng: PLACES.providencia.lng };
    const courier = await courierOnDuty(t, { mode: 'live', at: pickup });
    const order = expectOk(
      await merchantApi(t, m.liveKey).create({
        pickup: { address: 'Av. Providencia 1234', coords: pickup },
        dropoff: { address: 'Av. Apoquindo 3000, Las Condes' },
        customer_name: 'Valentina Fuentealba',
        customer_phone: '+56976543210',
        total_weight_kg: 1,
      }),
      201,
    ).body as { booking_id: string; tracking_number: string; status: string };
    expect(order.status).toBe('assigned');
    // The geocoder really answered: the merchant's own view carries its display text.
    const own = await t.app.container.store.orders.findById(order.booking_id);
    expect(own!.dropoff.label).toContain('Avenida Apoquindo');

    const rest = expectOk(await api(`${t.url}/api/v1/tracking/${order.tracking_number}`));
    expectWireShape(trackingResponseSchema, rest.body);
    expect(rest.body.dropoff.label).toBe('Las Condes');
    expect(streetTextIn(JSON.stringify(rest.body))).toEqual([]);

    const updates: unknown[] = [];
    client.subscribe(
      { query: 'subscription ($ref: String!) { tracking(reference: $ref) { reference status location { lat lng } estimatedDeliveryTime at } }', variables: { ref: order.tracking_number } },
      { next: (result) => void updates.push(result), error: () => {}, complete: () => {} },
    );
    await until(() => t.app.container.services.tracking.watchedOrders() === 1, 'the GraphQL watch to register');

    const live = openLive(t.url, order.tracking_number);
    const snapshot = await live.waitFor((msg) => msg.type === 'snapshot', 'the snapshot');
    expect(snapshot.tracking.dropoff.label).toBe('Las Condes');

    const point = along(pickup, PLACES.lasCondes, 0.3);
    expectOk(await courier.position(point));
    expectOk(await courier.status(order.booking_id, 'arrived_pickup'));
    await until(() => updates.length >= 2 && live.messages.some((msg) => msg.type === 'snapshot' && msg.tracking.status === 'arrived_pickup'), 'the updates');

    const everything = [JSON.stringify(updates), ...live.frames].join('\n');
    expect(streetTextIn(everything)).toEqual([]);
    expect(live.messages.filter((msg) => msg.type === 'snapshot').every((msg) => msg.tracking.dropoff.label === 'Las Condes')).toBe(true);
    await live.close();
  });
});
