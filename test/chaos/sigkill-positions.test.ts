/**
 * Courier positions are written in batches (POSITION_FLUSH_MS): a crash may lose the positions of
 * the last unflushed batch, never a status change; a graceful stop writes every position it took.
 * Real processes, the SQLite file on disk, positions over the courier socket at 20 per second.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { buildContainer } from '../../src/container.js';
import { loadConfig } from '../../src/config.js';
import { createSqliteStore } from '../../src/adapters/sqlite/store.js';
import { api, makeDataDir, type MerchantCredentials } from '../helpers/app.js';
import { spawnServer, type ServerProcess } from '../helpers/process.js';
import { PLACES, north } from '../orders/support.js';

const FLUSH_MS = 400;
/** Scheduling slack on a loaded 2-core machine, on top of one flush interval. */
const SLACK_MS = 600;
const env = (dataDir: string) => ({ DATA_DIR: dataDir, POSITION_FLUSH_MS: String(FLUSH_MS), COURIER_RATE_LIMIT_PER_MIN: '1000000', RATE_LIMIT_PER_MIN: '1000000' });

async function setUp(dataDir: string) {
  const container = await buildContainer(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', SEED_DEMO: 'false', SANDBOX_SIMULATOR: 'false' }));
  const merchant = await container.services.admin.createMerchant({ input: { name: 'Crash Positions Shop', address: 'Av. Providencia 1234, Providencia' } });
  const courier = await container.services.admin.createCourier({ input: { name: 'Crash Courier', phone: '+56987654321', vehicle: 'motorcycle', plate: 'CR0001', mode: 'live' } });
  await container.close();
  return { merchant, courier };
}

/** Opens the courier socket; `send` resolves with the client time of the answer. */
async function courierSocket(url: string, token: string) {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/api/v1/couriers/me/live`, { headers: { authorization: `Bearer ${token}` } });
  const waiting = new Map<number, (frame: { type: string; arrivals?: unknown[] }) => void>();
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data)) as { type: string; id?: number };
    if (frame.id !== undefined) waiting.get(frame.id)?.(frame);
  });
  ws.on('error', () => {});
  await new Promise((resolve) => ws.once('message', resolve));
  let n = 0;
  return {
    ws,
    send: (position: { lat: number; lng: number }) =>
      new Promise<{ type: string; arrivals?: unknown[]; at: number }>((resolve) => {
        const id = ++n;
        waiting.set(id, (frame) => resolve({ ...frame, at: performance.now() }));
        ws.send(JSON.stringify({ type: 'position', id, ...position }));
      }),
  };
}

describe('SIGKILL while couriers report positions', () => {
  let dataDir: string;
  let merchant: MerchantCredentials;
  let courier: { courierId: string; token: string };
  let node: ServerProcess;
  let orderId: string;
  /** latitude → when its ack arrived (client clock), for every acknowledged position. */
  const acked = new Map<number, number>();
  let killedAt = 0;

  beforeAll(async () => {
    dataDir = makeDataDir();
    ({ merchant, courier } = await setUp(dataDir));
    node = await spawnServer(env(dataDir));
  });
  afterAll(async () => {
    if (node.child.exitCode === null && node.child.signalCode === null) await node.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('step 1: the courier goes on duty, takes an order and arrives at its pickup (status changes, acknowledged)', async () => {
    const duty = await api(`${node.url}/api/v1/couriers/me/duty`, { key: courier.token, body: { on_duty: true } });
    expect(duty.status).toBe(200);
    const socket = await courierSocket(node.url, courier.token);
    await socket.send(PLACES.providencia);
    const created = await api(`${node.url}/api/v1/orders`, {
      key: merchant.liveKey,
      body: { pickup: { address: 'Av. Providencia 1234', coords: north(PLACES.providencia, 500) }, dropoff: { address: 'Av. Apoquindo 4501, Las Condes', coords: PLACES.lasCondes }, customer_name: 'Ana', customer_phone: '+56912345678', total_weight_kg: 1 },
    });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('assigned');
    orderId = created.body.booking_id as string;
    const arrival = await socket.send(north(PLACES.providencia, 500));
    expect(arrival.arrivals).toEqual([{ booking_id: orderId, status: 'arrived_pickup' }]);
    socket.ws.terminate();
  });

  it('step 2: positions stream at 20 per second until the process is SIGKILLed right after an ack', async () => {
    const socket = await courierSocket(node.url, courier.token);
    for (let i = 1; i <= 60; i++) {
      const position = north(PLACES.providencia, 500 + i * 5);
      const ack = await socket.send(position);
      expect(ack.type).toBe('ack');
      acked.set(position.lat, ack.at);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await node.kill();
    killedAt = performance.now();
  });

  it('step 3: the stored position is one that was acknowledged, at most one batch before the crash; every status change is stored', async () => {
    const store = createSqliteStore({ dataDir });
    try {
      const stored = await store.couriers.findById(courier.courierId);
      expect(stored?.status).toBe('busy');
      const ackedAt = acked.get(stored!.location!.lat);
      expect(ackedAt, 'the stored position was acknowledged in step 2').toBeDefined();
      const lost = [...acked.values()].filter((at) => at > ackedAt!).length;
      expect(killedAt - ackedAt!).toBeLessThan(FLUSH_MS + SLACK_MS);
      expect(lost).toBeLessThan(60);
      const order = await store.orders.findById(orderId);
      expect(order?.status).toBe('arrived_pickup');
      expect((await store.orders.listEvents(orderId)).map((e) => e.to)).toEqual(['new', 'assigned', 'arrived_pickup']);
    } finally {
      await store.close();
    }
  });

  it('step 4: after a graceful stop (SIGTERM) the last acknowledged position is stored', async () => {
    node = await spawnServer(env(dataDir));
    const socket = await courierSocket(node.url, courier.token);
    const last = north(PLACES.providencia, 900);
    await socket.send(north(PLACES.providencia, 899));
    expect((await socket.send(last)).type).toBe('ack');
    expect(await node.terminate()).toBe(0);
    const store = createSqliteStore({ dataDir });
    try {
      expect((await store.couriers.findById(courier.courierId))?.location).toEqual(last);
    } finally {
      await store.close();
    }
  });
});
