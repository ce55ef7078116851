/**
 * The courier socket (/api/v1/couriers/me/live): position reports over one persistent connection,
 * with the same validation, budget, arrival and storage as POST /couriers/me/location — and its
 * own edges: auth at connect, bad frames, oversized frames, too many frames in flight, the
 * per-token socket cap, and revocation of the token while connected.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { api, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { PLACES, courierOnDuty, createCourier, expectOk, merchantApi, north, standDown, startOrdersApp } from '../orders/support.js';
import { assignedOrder, along, openLive, until, type LiveMessage } from './support.js';

type Frame = { type: string; [key: string]: unknown };

interface CourierSocket {
  ws: WebSocket;
  frames: Frame[];
  closed: Promise<{ code: number; reason: string }>;
  /** Sends a frame (object → JSON) and waits for the answer carrying its id. */
  report(frame: object): Promise<Frame>;
  waitFor(match: (f: Frame) => boolean, what: string): Promise<Frame>;
}

function socketUrl(t: TestApp) {
  return `${t.url.replace(/^http/, 'ws')}/api/v1/couriers/me/live`;
}

/** Connects and resolves once the `ready` frame arrived. */
async function connect(t: TestApp, token: string, options: { autoPong?: boolean } = {}): Promise<CourierSocket> {
  const ws = new WebSocket(socketUrl(t), { headers: { authorization: `Bearer ${token}` }, ...options });
  const frames: Frame[] = [];
  ws.on('message', (data) => frames.push(JSON.parse(String(data)) as Frame));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  const waitFor = (match: (f: Frame) => boolean, what: string) => until(() => frames.find(match), what);
  await waitFor((f) => f.type === 'ready', 'the ready frame');
  let n = 0;
  return {
    ws,
    frames,
    closed,
    waitFor,
    async report(frame) {
      const id = `r${++n}`;
      ws.send(JSON.stringify({ type: 'position', id, ...frame }));
      return waitFor((f) => f.id === id, `the answer to ${id}`);
    },
  };
}

/** The HTTP answer of a refused upgrade: status and parsed error body. */
function refusedUpgrade(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: { success: boolean; error: { code: string } } }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => reject(new Error('the upgrade was accepted')));
    ws.on('error', () => {});
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) as never }));
    });
  });
}

describe('courier socket', () => {
  let t: TestApp;
  let m: MerchantCredentials;

  beforeAll(async () => {
    t = await startOrdersApp({ env: { CREDENTIAL_RECHECK_MS: '200', MAX_SOCKETS_PER_CREDENTIAL: '2' } });
    m = await t.createMerchant({ name: 'Courier Socket Merchant' });
  });
  afterAll(() => t?.stop());

  describe('happy path', () => {
    it('a report is acknowledged, stored, fanned out to the order\'s tracking sockets, and marks the arrival at the pickup', async () => {
      const { order, courier, pickup } = await assignedOrder(t, m.liveKey);
      const viewer = openLive(t.url, order.tracking_number);
      await viewer.waitFor((f: LiveMessage) => f.type === 'snapshot', 'snapshot');
      const socket = await connect(t, courier.token);
      expect(socket.frames[0]).toEqual({ type: 'ready', courier: { id: courier.id, status: 'busy' }, max_frame_bytes: 16_384, max_batch: 50 });

      const between = along(pickup, PLACES.lasCondes, 0.5);
      const ack = await socket.report({ lat: between.lat, lng: between.lng, heading: 90, speed_kmh: 30, accuracy_m: 5 });
      expect(ack).toEqual({ type: 'ack', id: 'r1', arrivals: [] });
      await viewer.waitFor((f) => f.type === 'position' && f.lat === between.lat && f.lng === between.lng, 'the position on the tracking socket');
      // Read-your-writes on the node, although positions are written in batches.
      expect(expectOk(await courier.me()).body.courier).toMatchObject({ location: between });

      const arrived = await socket.report({ lat: pickup.lat, lng: pickup.lng });
      expect(arrived).toEqual({ type: 'ack', id: 'r2', arrivals: [{ booking_id: order.booking_id, status: 'arrived_pickup' }] });
      await viewer.waitFor((f) => f.type === 'status' && f.status === 'arrived_pickup', 'the status on the tracking socket');
      socket.ws.close();
      await viewer.close();
    });

    it('answers frames in the order they were sent, each with its own id', async () => {
      const courier = await courierOnDuty(t, { mode: 'test', at: PLACES.santiago });
      const socket = await connect(t, courier.token);
      for (let i = 0; i < 5; i++) socket.ws.send(JSON.stringify({ type: 'position', id: i, ...north(PLACES.santiago, 10 * i) }));
      await until(() => socket.frames.filter((f) => f.type === 'ack').length === 5, 'five acks');
      expect(socket.frames.filter((f) => f.type === 'ack').map((f) => f.id)).toEqual([0, 1, 2, 3, 4]);
      expect(expectOk(await courier.me()).body.courier.location).toEqual(north(PLACES.santiago, 40));
      socket.ws.close();
    });
  });

  describe('bad frames get the REST error body and leave the socket open', () => {
    let socket: CourierSocket;
    beforeAll(async () => {
      const courier = await courierOnDuty(t, { mode: 'test', at: PLACES.nunoa });
      socket = await connect(t, courier.token);
    });
    afterAll(() => socket?.ws.close());

    it.each([
      ['a latitude that is not a number', { lat: 'x', lng: -70.6 }, 'VALIDATION_ERROR', 'lat'],
      ['an unknown field', { lat: -33.44, lng: -70.65, altitude: 3 }, 'VALIDATION_ERROR', undefined],
      ['a speed out of range', { lat: -33.44, lng: -70.65, speed_kmh: 900 }, 'VALIDATION_ERROR', 'speed_kmh'],
      ['a position outside the service area', { lat: -41.47, lng: -72.94 }, 'OUTSIDE_SERVICE_AREA', undefined],
    ])('%s → error frame %s', async (_what, body, code, field) => {
      const answer = await socket.report(body);
      expect(answer).toMatchObject({ type: 'error', error: { code } });
      if (field) expect((answer.error as { fields: Array<{ field: string }> }).fields.map((f) => f.field)).toContain(field);
      expect(socket.ws.readyState).toBe(WebSocket.OPEN);
    });

    it('a frame that is not JSON, not an object, binary, or of another type → VALIDATION_ERROR', async () => {
      const before = socket.frames.length;
      for (const frame of ['{not json', '[1,2]', '"position"', JSON.stringify({ type: 'ping', id: 'x' })]) socket.ws.send(frame);
      socket.ws.send(Buffer.from(JSON.stringify({ type: 'position', lat: -33.44, lng: -70.65 })), { binary: true });
      await until(() => socket.frames.length >= before + 5, 'five answers');
      const answers = socket.frames.slice(before);
      expect(answers.map((f) => [f.type, (f.error as { code: string }).code])).toEqual(Array(5).fill(['error', 'VALIDATION_ERROR']));
      expect(answers[3]).toMatchObject({ id: 'x', error: { fields: [{ field: 'type' }] } });
      expect(socket.ws.readyState).toBe(WebSocket.OPEN);
    });

    it('a positions backlog is applied oldest first; a fix older than the stored one is counted stale, never stored; a batch out of order is refused whole', async () => {
      // A new courier: nothing stored yet, so the backlog's own times decide.
      const courier = await createCourier(t, { mode: 'test' });
      const socket = await connect(t, courier.token);
      const base = Date.now() - 60_000;
      const at = (s: number) => new Date(base + s * 1000).toISOString();
      const [first, second, older] = [north(PLACES.santiago, 100), north(PLACES.santiago, 200), north(PLACES.santiago, 300)];
      const batch = (id: string, positions: object[]) => {
        socket.ws.send(JSON.stringify({ type: 'positions', id, positions }));
        return socket.waitFor((f) => f.id === id, `the answer to ${id}`);
      };
      expect(await batch('b1', [{ ...first, recorded_at: at(0) }, { ...second, recorded_at: at(10) }])).toMatchObject({ type: 'ack', applied: 2, stale: 0 });
      expect(await batch('b2', [{ ...older, recorded_at: at(5) }])).toMatchObject({ type: 'ack', applied: 0, stale: 1 });
      const me = expectOk(await courier.me()).body.courier;
      expect(me.location).toEqual(second);
      expect(Date.parse(me.location_at)).toBe(base + 10_000);
      expect(await batch('b3', [{ ...first, recorded_at: at(30) }, { ...second, recorded_at: at(20) }])).toMatchObject({ type: 'error', error: { code: 'VALIDATION_ERROR' } });
      expect(await batch('b4', [{ ...first }])).toMatchObject({ type: 'error', error: { code: 'VALIDATION_ERROR' } });
      socket.ws.close();
    });

    it('an oversized frame closes the socket with 1009', async () => {
      const courier = await courierOnDuty(t, { mode: 'test', at: PLACES.santiago });
      const big = await connect(t, courier.token);
      big.ws.send(JSON.stringify({ type: 'position', lat: -33.44, lng: -70.65, pad: 'x'.repeat(20_000) }));
      expect((await big.closed).code).toBe(1009);
    });
  });

  describe('credentials', () => {
    it.each([
      ['no token', {}],
      ['a malformed token', { authorization: 'Bearer nope' }],
      ['an unknown courier token', { authorization: `Bearer ct_${'A'.repeat(40)}` }],
    ])('%s → 401 INVALID_COURIER_TOKEN before any upgrade', async (_what, headers) => {
      const refused = await refusedUpgrade(socketUrl(t), headers);
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ success: false, error: { code: 'INVALID_COURIER_TOKEN' } });
    });

    it("a merchant's API key is not a courier token → 401", async () => {
      const refused = await refusedUpgrade(socketUrl(t), { authorization: `Bearer ${m.liveKey}` });
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('INVALID_COURIER_TOKEN');
    });

    it('at most MAX_SOCKETS_PER_CREDENTIAL sockets per token (here 2): the third gets 429', async () => {
      const courier = await createCourier(t, { mode: 'test' });
      const open = [await connect(t, courier.token), await connect(t, courier.token)];
      const refused = await refusedUpgrade(socketUrl(t), { authorization: `Bearer ${courier.token}` });
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('RATE_LIMITED');
      open[0]!.ws.close();
      await open[0]!.closed;
      const again = await connect(t, courier.token);
      for (const s of [open[1]!, again]) s.ws.close();
    });

    it('a rotated token closes the open socket with 4403', async () => {
      const courier = await createCourier(t, { mode: 'test' });
      const socket = await connect(t, courier.token);
      await t.app.container.services.admin.rotateCourierToken({ input: { courierId: courier.id } });
      expect(await socket.closed).toMatchObject({ code: 4403 });
    });

    it('a disabled courier: its next frame is refused with INVALID_COURIER_TOKEN and the socket closes with 4403', async () => {
      const courier = await courierOnDuty(t, { mode: 'test', at: PLACES.providencia });
      const socket = await connect(t, courier.token);
      await t.app.container.services.admin.disableCourier({ input: { courierId: courier.id } });
      const answer = await socket.report({ lat: -33.44, lng: -70.65 });
      expect(answer).toMatchObject({ type: 'error', error: { code: 'INVALID_COURIER_TOKEN' } });
      expect((await socket.closed).code).toBe(4403);
    });
  });
});

describe('courier socket budget', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startOrdersApp({ env: { COURIER_RATE_LIMIT_PER_MIN: '6' } });
  });
  afterAll(() => t?.stop());

  it('connect and every frame draw from the courier budget that HTTP reports also use', async () => {
    const courier = await createCourier(t, { mode: 'test' });
    const socket = await connect(t, courier.token); // 1 of 6
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await socket.report(north(PLACES.santiago, i)));
    expect(answers.slice(0, 5).every((a) => a.type === 'ack')).toBe(true);
    expect(answers[5]).toMatchObject({ type: 'error', error: { code: 'RATE_LIMITED' } });
    const http = await api(`${t.url}/api/v1/couriers/me/location`, { key: courier.token, body: PLACES.santiago });
    expect(http.status).toBe(429);
    socket.ws.close();
  });

  it('more than 8 frames waiting for their answer: the excess is refused at once with RATE_LIMITED', async () => {
    const t2 = await startOrdersApp({ env: { COURIER_RATE_LIMIT_PER_MIN: '1000000' } });
    try {
      const courier = await courierOnDuty(t2, { mode: 'test', at: PLACES.santiago });
      const socket = await connect(t2, courier.token);
      const frame = JSON.stringify({ type: 'position', ...PLACES.santiago });
      // Fewer than the unpaid allowance (refused frames past it close the socket: socket-flood.test.ts).
      for (let i = 0; i < 60; i++) socket.ws.send(frame);
      await until(() => socket.frames.length >= 61, 'an answer to every frame');
      const refused = socket.frames.filter((f) => f.type === 'error');
      expect(refused.length).toBeGreaterThan(0);
      expect(refused.every((f) => (f.error as { code: string }).code === 'RATE_LIMITED')).toBe(true);
      expect(socket.frames.filter((f) => f.type === 'ack').length).toBe(60 - refused.length);
      // Shutting down answers what was received, then closes with 1001.
      await t2.stop();
      expect((await socket.closed).code).toBe(1001);
    } finally {
      await t2.stop();
    }
  });
});

describe('courier socket heartbeat', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startOrdersApp({ env: { TRACKING_HEARTBEAT_MS: '100' } });
  });
  afterAll(() => t?.stop());

  it('terminates a courier app that does not answer pings, and keeps one that does', async () => {
    const [silent, healthy] = [await createCourier(t, { mode: 'test' }), await createCourier(t, { mode: 'test' })];
    const dead = await connect(t, silent.token, { autoPong: false });
    const alive = await connect(t, healthy.token);
    expect((await dead.closed).code).toBe(1006);
    let pings = 0;
    alive.ws.on('ping', () => pings++);
    await until(() => pings >= 3, 'three more pings');
    expect(alive.ws.readyState).toBe(WebSocket.OPEN);
    expect(t.app.courierSockets.stats().sockets).toBe(1);
    alive.ws.close();
  });
});

/**
 * A socket's reports use its session's snapshot of the courier and its orders
 * (src/domain/courier-snapshots.ts): each case first reports, so that a snapshot is kept, then
 * changes what it holds, and the very next frame must see the change. The credential recheck is
 * a minute here, so it is the report that notices, not the session sweep.
 */
describe('courier socket: the next report sees what changed since the last', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  const positions: Array<{ courierId: string; orderIds: string[] }> = [];

  beforeAll(async () => {
    t = await startOrdersApp({ env: { CREDENTIAL_RECHECK_MS: '60000' } });
    m = await t.createMerchant({ name: 'Snapshot Merchant' });
    t.app.container.bus.subscribe((message) => {
      if (message.type === 'courier.position') positions.push({ courierId: message.courierId, orderIds: message.orderIds });
    });
  });
  afterAll(() => t?.stop());

  /**
   * Reports until the session keeps a snapshot (the change below must drop it): a report that
   * moves an order's estimate (the live ETA's first one does) drops it itself.
   */
  async function reportAndKeep(socket: CourierSocket, at: { lat: number; lng: number }) {
    const stats = () => t.app.container.services.couriers.snapshotStats();
    for (let i = 0; i < 3 && stats().kept === 0; i++) expect(await socket.report(at)).toMatchObject({ type: 'ack' });
    expect(stats()).toEqual({ held: 1, kept: 1 });
  }
  /** A courier with an assigned order, its socket open and its snapshot kept, carrying the order on the bus. */
  async function carryingAssignedOrder() {
    const { order, courier, pickup } = await assignedOrder(t, m.liveKey);
    const mine = () => positions.filter((p) => p.courierId === courier.id);
    const socket = await connect(t, courier.token);
    open.push(socket.ws);
    await reportAndKeep(socket, along(pickup, PLACES.lasCondes, 0.3));
    expect((await until(() => mine().at(-1), 'the first report on the bus')).orderIds).toEqual([order.booking_id]);
    return { order, courier, pickup, socket, mine };
  }
  afterEach(async () => {
    for (const ws of open.splice(0)) ws.close();
    await until(() => t.app.container.services.couriers.snapshotStats().held === 0, 'every session released');
  });
  const open: WebSocket[] = [];

  it('a new assignment: the next report at the pickup marks the arrival', async () => {
    const pickup = north(PLACES.nunoa, 300);
    const courier = await courierOnDuty(t, { mode: 'live', at: pickup });
    const socket = await connect(t, courier.token);
    open.push(socket.ws);
    await reportAndKeep(socket, north(pickup, 5));
    expect((await until(() => positions.filter((p) => p.courierId === courier.id).at(-1), 'the first report on the bus')).orderIds).toEqual([]);
    const created = expectOk(
      await merchantApi(t, m.liveKey).create({
        pickup: { address: 'Av. Irarrázaval 3400', coords: pickup },
        dropoff: { address: 'Av. Apoquindo 4500, Las Condes', coords: PLACES.lasCondes, number: '4500' },
        customer_name: 'Ana Pérez', customer_phone: '+56912345678', total_weight_kg: 1,
      }),
      201,
    ).body as { booking_id: string; status: string };
    expect(created.status).toBe('assigned');
    const arrived = await socket.report(pickup);
    expect(arrived).toMatchObject({ type: 'ack', arrivals: [{ booking_id: created.booking_id, status: 'arrived_pickup' }] });
  });

  it('an order cancelled by the merchant: the next report no longer carries it', async () => {
    const { order, pickup, socket, mine } = await carryingAssignedOrder();
    expectOk(await merchantApi(t, m.liveKey).cancel(order.booking_id, { reason: 'customer changed their mind' }));
    const seen = mine().length;
    expect(await socket.report(along(pickup, PLACES.lasCondes, 0.35))).toMatchObject({ type: 'ack', arrivals: [] });
    expect((await until(() => mine()[seen], 'the next report on the bus')).orderIds).toEqual([]);
  });

  it('a reassignment (the courier releases its order, dispatched to a courier nearer the pickup): the next report no longer carries it', async () => {
    const { order, courier, pickup, socket, mine } = await carryingAssignedOrder();
    const nearer = await courierOnDuty(t, { mode: 'live', at: pickup });
    expectOk(await courier.release(order.booking_id, 'flat tyre'));
    expect(expectOk(await nearer.orders()).body.orders).toMatchObject([{ booking_id: order.booking_id }]);
    const seen = mine().length;
    expect(await socket.report(along(pickup, PLACES.lasCondes, 0.31))).toMatchObject({ type: 'ack', arrivals: [] });
    expect((await until(() => mine()[seen], 'the next report on the bus')).orderIds).toEqual([]);
    await standDown(nearer);
  });

  it('a courier disabled by the admin: the next frame is refused with INVALID_COURIER_TOKEN and the socket closes with 4403', async () => {
    const { courier, pickup } = await assignedOrder(t, m.liveKey);
    const socket = await connect(t, courier.token);
    open.push(socket.ws);
    await reportAndKeep(socket, along(pickup, PLACES.lasCondes, 0.3));
    await t.app.container.services.admin.disableCourier({ input: { courierId: courier.id } });
    expect(await socket.report(along(pickup, PLACES.lasCondes, 0.32))).toMatchObject({ type: 'error', error: { code: 'INVALID_COURIER_TOKEN' } });
    expect((await socket.closed).code).toBe(4403);
  });
});
