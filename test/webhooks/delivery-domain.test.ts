/**
 * The delivery domain's status changes (issue #30 items 2, 5 and 7) as the merchant's endpoints get
 * them, in both payload shapes, each verified with the independent `standardwebhooks` package: an
 * ID-checked delivery (the proof keeps the last four digits only), a failed attempt and the return
 * leg (reason, fee, proof at the pickup), and a cancellation after assignment (its fee).
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SANTIAGO_TARIFF } from '../../src/domain/tariffs.js';
import { api, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { EVIDENCE, PLACES, courierOnDuty, expectOk, formA, merchantApi, north, standDown, type CourierClient } from '../orders/support.js';
import { startReceiver, startWebhooksApp, waitFor, webhooksApi, type Receiver } from './support.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON

const ADULT = { document_number: '15.432.987-0', date_of_birth: '1990-05-04' };
const SHAPES = ['/event', '/flat'] as const;

describe('delivery-domain status changes, signed and verified with standardwebhooks', () => {
  let t: TestApp;
  let receiver: Receiver;
  let m: MerchantCredentials;
  let courier: CourierClient;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startWebhooksApp();
    m = await t.createMerchant({ name: 'Domain Hooks', address: 'Av. Providencia 1234, Providencia' });
    const hooks = webhooksApi(t.url, m.testKey);
    expectOk(await hooks.create({ url: `${receiver.url}/event`, events: ['order.status_changed'] }), 201);
    expectOk(await hooks.create({ url: `${receiver.url}/flat`, events: ['order.status_changed'], payload_shape: 'flat' }), 201);
    courier = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 300) });
  });
  afterAll(async () => {
    await standDown(courier);
    await t?.stop();
    await receiver?.close();
  });

  const orders = () => merchantApi(t, m.testKey);
  const courierCall = (id: string, action: string, body: unknown) => api(`${t.url}/api/v1/couriers/me/orders/${id}/${action}`, { key: courier.token, body });
  /** The verified payload of `id`'s change to `status` (flat: its status word) at each endpoint. */
  async function verified(id: string, status: string): Promise<Record<(typeof SHAPES)[number], Json>> {
    const flatStatus = status === 'completed' ? 'delivered' : status;
    const entries = await Promise.all(SHAPES.map(async (shape) => {
      const receipt = await waitFor(() => receiver.receipts.find((r) => {
        if (r.path !== shape) return false;
        const body = JSON.parse(r.body) as Json;
        return body.booking_id === id && body.status === (shape === '/flat' ? flatStatus : status);
      }), { what: `${status} of ${id} at ${shape}` });
      return [shape, new Webhook(m.apiSecret).verify(receipt.body, receipt.headers) as Json] as const;
    }));
    return Object.fromEntries(entries) as Record<(typeof SHAPES)[number], Json>;
  }
  async function assigned(extra: Record<string, unknown> = {}): Promise<string> {
    const created = expectOk(await orders().create(formA(extra)), 201).body;
    expect(created.status).toBe('assigned');
    return created.booking_id as string;
  }

  it('an ID-checked delivery: both shapes carry the check, with the document\'s last four digits only', async () => {
    const id = await assigned({ id_check: { required: true, min_age: 21 } });
    for (const status of ['picked_up', 'arrived_dropoff']) expectOk(await courier.status(id, status));
    expectOk(await courier.deliver(id, { driver_id: courier.id, coords: north(PLACES.lasCondes, 5), ...EVIDENCE, id_check: ADULT }));
    const done = await verified(id, 'completed');
    for (const shape of SHAPES) {
      expect(done[shape].proof.id_check).toMatchObject({ verified: true, min_age: 21, document_last4: '9870' });
      expect(JSON.stringify(done[shape])).not.toContain('15432987');
    }
  });

  it('a failed attempt and the return: the reason, the return fee and the proof at the pickup', async () => {
    const id = await assigned({ failed_attempt_policy: 'return' });
    expectOk(await courier.status(id, 'picked_up'));
    expectOk(await courierCall(id, 'failed-attempt', { reason: 'recipient_absent', note: 'Nadie responde', coords: PLACES.lasCondes }));
    expectOk(await courierCall(id, 'return', { coords: PLACES.providencia, ...EVIDENCE }));
    const failed = await verified(id, 'delivery_failed');
    const returning = await verified(id, 'returning');
    const returned = await verified(id, 'returned');
    for (const shape of SHAPES) {
      expect(failed[shape]).toMatchObject({ failed_attempt: { reason: 'recipient_absent', outcome: 'returning' }, attempts: 1 });
      expect(returning[shape]).toMatchObject({ return_fee: DEFAULT_SANTIAGO_TARIFF.return_fee });
      expect(returned[shape]).toMatchObject({ return_proof: { geofence: 'passed', photo_url: EVIDENCE.photo_url } });
    }
  });

  it('a cancellation after assignment carries the fee the preview announced', async () => {
    const id = await assigned();
    const preview = expectOk(await orders().cancellation(id)).body;
    expectOk(await orders().cancel(id));
    const cancelled = await verified(id, 'cancelled');
    for (const shape of SHAPES) expect(cancelled[shape]).toMatchObject({ cancellation_fee: preview.fee });
    expect(preview.fee).toBe(DEFAULT_SANTIAGO_TARIFF.cancellation.assigned_fee);
  });
});
