/**
 * OWASP API7:2023 Server Side Request Forgery. Webhook URLs — the one place the service calls a
 * URL a client chose — are covered in test/webhooks/ssrf.test.ts (registration and send time,
 * private/loopback/link-local in every spelling, DNS rebinding) and test/webhooks/retries.test.ts
 * (redirects are never followed). This file adds the cross-check that every other URL a client can
 * hand over is stored, never fetched: delivery evidence (merchant and courier paths, REST and
 * GraphQL), plugin telemetry (X-Site-Url, Origin, User-Agent) and the storefront domain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { expectOk, PLACES } from '../orders/support.js';
import { assignedOrder } from '../realtime/support.js';
import { startReceiver, type Receiver } from '../webhooks/support.js';
import { startSecurityApp } from './support.js';

describe('API7: SSRF — URLs other than webhook endpoints are never fetched', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startSecurityApp();
    m = await t.createMerchant({ name: 'SSRF Shop' });
  });
  afterAll(async () => {
    await t?.stop();
    await receiver?.close();
  });

  /** Drives a fresh order to picked_up (delivery evidence is accepted from there). */
  async function pickedUp() {
    const { order, courier } = await assignedOrder(t, m.liveKey);
    expectOk(await courier.status(order.booking_id, 'arrived_pickup'));
    expectOk(await courier.status(order.booking_id, 'picked_up'));
    return { order, courier };
  }

  it('delivery evidence URLs (photo, signature) pointing at an internal server are stored, not fetched', async () => {
    const evidence = (path: string) => ({ photo_url: `${receiver.url}/${path}/photo.jpg`, signature_url: `http://127.0.0.1:${receiver.port}/${path}/signature.png` });
    const viaMerchant = await pickedUp();
    expectOk(await api(`${t.url}/api/v1/orders/${viaMerchant.order.booking_id}/deliver`, {
      key: m.liveKey,
      body: { driver_id: viaMerchant.courier.id, coords: PLACES.lasCondes, bypass: true, ...evidence('merchant') },
    }));
    const viaCourier = await pickedUp();
    expectOk(await viaCourier.courier.deliver(viaCourier.order.booking_id, { driver_id: viaCourier.courier.id, coords: PLACES.lasCondes, bypass: true, ...evidence('courier') }));
    const viaGraphQL = await pickedUp();
    const res = await gql(
      t.url,
      `mutation ($id: String!, $input: ConfirmDeliveryInput!) { confirmDelivery(id: $id, input: $input) { __typename ... on MutationConfirmDeliverySuccess { data { proof { photoUrl } } } } }`,
      { key: m.liveKey, variables: { id: viaGraphQL.order.booking_id, input: { driverId: viaGraphQL.courier.id, coords: PLACES.lasCondes, bypass: true, photoUrl: `${receiver.url}/graphql/p.jpg`, signatureUrl: `${receiver.url}/graphql/s.png` } } },
    );
    expect(res.body.data.confirmDelivery.data.proof.photoUrl).toBe(`${receiver.url}/graphql/p.jpg`);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.receipts).toEqual([]);
  });

  it('plugin telemetry (X-Site-Url, Origin, User-Agent) and the storefront domain are recorded, not fetched', async () => {
    await api(`${t.url}/api/v1/plugin/shipping-quote`, {
      key: m.testKey,
      headers: { 'x-site-url': `${receiver.url}/site`, origin: `http://127.0.0.1:${receiver.port}`, 'user-agent': `express-delivery-woo/1.0 (${receiver.url}/ua)` },
      body: { destination: { address: 'Av. Apoquindo 3000', city: 'Las Condes' }, contents: [{ name: 'Box', quantity: 1 }] },
    });
    expectOk(await api(`${t.url}/api/v1/merchants/settings`, { key: m.testKey, body: { storefront_domain: `127.0.0.1` } }));
    const telemetry = await t.app.container.services.admin.listIntegrationTelemetry({ merchantId: m.merchantId });
    expect(telemetry.map((r) => r.site)).toContain(`${receiver.url}/site`);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.receipts).toEqual([]);
  });
});
