/**
 * The courier socket pushes the courier's job (issue #27): an `order` frame carrying the order as
 * GET /couriers/me/orders shows it, when it is assigned, moves on or leaves the courier — so the
 * app needs no polling while the socket is up.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { MerchantCredentials, TestApp } from '../helpers/app.js';
import { PLACES, courierOnDuty, expectOk, merchantApi, north, standDown, startOrdersApp, type CourierClient } from '../orders/support.js';
import { assignedOrder, until } from './support.js';

type Frame = { type: string; booking_id?: string; status?: string | null; order?: Record<string, unknown> | null; courier?: { id: string; status: string } };

async function connect(t: TestApp, token: string) {
  const ws = new WebSocket(`${t.url.replace(/^http/, 'ws')}/api/v1/couriers/me/live`, { headers: { authorization: `Bearer ${token}` } });
  const frames: Frame[] = [];
  ws.on('message', (data) => frames.push(JSON.parse(String(data)) as Frame));
  await until(() => frames.find((f) => f.type === 'ready'), 'the ready frame');
  const orderFrames = () => frames.filter((f) => f.type === 'order');
  return { ws, frames, orderFrames, waitFor: (match: (f: Frame) => boolean, what: string) => until(() => orderFrames().find(match), what) };
}

/** The order as the courier reads it over REST. */
async function restView(courier: CourierClient, id: string) {
  const orders = expectOk(await courier.orders()).body.orders as Array<{ booking_id: string }>;
  return orders.find((o) => o.booking_id === id);
}

describe('courier socket: the job pushed as order frames', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  const open: WebSocket[] = [];

  beforeAll(async () => {
    t = await startOrdersApp({ env: { CREDENTIAL_RECHECK_MS: '60000' } });
    m = await t.createMerchant({ name: 'Job Push Merchant' });
  });
  afterEach(async () => {
    for (const ws of open.splice(0)) ws.close();
    await until(() => t.app.container.services.couriers.snapshotStats().held === 0, 'every session released');
  });
  afterAll(() => t?.stop());

  it('a new assignment arrives as an order frame with the order as GET /couriers/me/orders shows it; each step after it too', async () => {
    const pickup = north(PLACES.nunoa, 300);
    const courier = await courierOnDuty(t, { mode: 'live', at: pickup });
    const socket = await connect(t, courier.token);
    open.push(socket.ws);
    const created = expectOk(
      await merchantApi(t, m.liveKey).create({
        pickup: { address: 'Av. Irarrázaval 3400', coords: pickup },
        dropoff: { address: 'Av. Apoquindo 4500, Las Condes', coords: PLACES.lasCondes, number: '4500' },
        customer_name: 'Ana Pérez', customer_phone: '+56912345678', total_weight_kg: 1,
      }),
      201,
    ).body as { booking_id: string; status: string };
    expect(created.status).toBe('assigned');
    const pushed = await socket.waitFor((f) => f.booking_id === created.booking_id, 'the assigned order');
    expect(pushed).toMatchObject({ type: 'order', status: 'assigned' });
    // Busy with it: the courier's status follows in its own frame.
    await until(() => socket.frames.find((f) => f.type === 'courier' && f.courier?.status === 'busy'), 'the courier busy');
    expect(pushed.order).toEqual(await restView(courier, created.booking_id));
    // The courier's own step is pushed too (a second phone, or the app after a dead zone, learns of it).
    expectOk(await courier.status(created.booking_id, 'arrived_pickup'));
    const moved = await socket.waitFor((f) => f.booking_id === created.booking_id && f.status === 'arrived_pickup', 'the arrival');
    expect(moved.order).toEqual(await restView(courier, created.booking_id));
    expect(moved.order).toMatchObject({ status: 'arrived_pickup', delivery_pin_required: false });
    expect(moved.order).not.toHaveProperty('delivery_pin');
  });

  it('a socket opened on a courier with a job gets its orders right after ready', async () => {
    const { order, courier } = await assignedOrder(t, m.liveKey);
    const socket = await connect(t, courier.token);
    open.push(socket.ws);
    const pushed = await socket.waitFor((f) => f.booking_id === order.booking_id, 'the current job');
    expect(socket.frames[0]!.type).toBe('ready');
    expect(pushed.order).toEqual(await restView(courier, order.booking_id));
  });

  it('an order cancelled by the merchant: order null with its status', async () => {
    const { order, courier } = await assignedOrder(t, m.liveKey);
    const socket = await connect(t, courier.token);
    open.push(socket.ws);
    await socket.waitFor((f) => f.booking_id === order.booking_id, 'the current job');
    expectOk(await merchantApi(t, m.liveKey).cancel(order.booking_id, { reason: 'customer changed their mind' }));
    expect(await socket.waitFor((f) => f.booking_id === order.booking_id && f.order === null, 'the cancellation')).toEqual({ type: 'order', booking_id: order.booking_id, status: 'cancelled', order: null });
    await until(() => socket.frames.find((f) => f.type === 'courier' && f.courier?.status === 'available'), 'the courier available again');
  });

  it('a released order (dispatched to a courier nearer the pickup): order null, status null — where it went is not this courier\'s business', async () => {
    const { order, courier, pickup } = await assignedOrder(t, m.liveKey);
    const socket = await connect(t, courier.token);
    open.push(socket.ws);
    await socket.waitFor((f) => f.booking_id === order.booking_id, 'the current job');
    const nearer = await courierOnDuty(t, { mode: 'live', at: pickup });
    const watcher = await connect(t, nearer.token);
    open.push(watcher.ws);
    expectOk(await courier.release(order.booking_id, 'flat tyre'));
    expect(await socket.waitFor((f) => f.order === null, 'the release')).toEqual({ type: 'order', booking_id: order.booking_id, status: null, order: null });
    // The nearer courier's socket gets it as a new job.
    expect(await watcher.waitFor((f) => f.booking_id === order.booking_id, 'the reassignment')).toMatchObject({ status: 'assigned', order: { booking_id: order.booking_id } });
    await standDown(nearer);
  });

  it('a courier without a job gets no order frame (nor a courier frame while its status holds); a closed socket stops listening', async () => {
    const courier = await courierOnDuty(t, { mode: 'test', at: PLACES.santiago });
    const before = t.app.container.fanOut.sizes().sinks;
    const socket = await connect(t, courier.token);
    await until(() => t.app.container.fanOut.sizes().sinks > before, 'the job watch');
    socket.ws.send(JSON.stringify({ type: 'position', id: 1, ...north(PLACES.santiago, 50) }));
    await until(() => socket.frames.find((f) => f.type === 'ack'), 'the ack');
    expect(socket.frames.filter((f) => f.type !== 'ready' && f.type !== 'ack')).toEqual([]);
    socket.ws.close();
    await until(() => t.app.container.fanOut.sizes().sinks === before, 'the job watch to stop');
  });
});
