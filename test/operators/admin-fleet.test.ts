import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { TestApp } from '../helpers/app.js';
import { signedIn as memberSignedIn } from '../members/support.js';
import { courier as courierFixture } from '../contract/fixtures.js';
import { courierOnDuty, createCourier, expectOk, formA, merchantApi, north, PLACES, startOrdersApp } from '../orders/support.js';
import { signedInOperator } from './support.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the parsed JSON freely
type Data = any;
interface Frame { couriers: Array<{ courierId: string; mode: string; dutyStatus: string; jobKind: string | null; jobId: string | null; active: boolean; location: { lat: number; lng: number } | null }>; at: string }

const FLEET = 'subscription ($mode: Mode) { adminFleet(mode: $mode) { at couriers { courierId mode dutyStatus jobKind jobId active location { lat lng } } } }';

/** Polls until `check` holds (generous, for a busy machine); the last failure otherwise. */
async function eventually(check: () => void, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** A graphql-ws client as a browser page of this server opens it: the cookie, this Origin, the scope asked. */
function fleetStream(t: TestApp, options: { cookie?: string; origin?: string; params?: Record<string, unknown>; mode?: 'live' | 'test' }) {
  class BrowserSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers: { ...(options.cookie && { cookie: options.cookie }), origin: options.origin ?? t.url } });
    }
  }
  const stream = { frames: [] as Frame[], errors: [] as unknown[], closes: [] as number[] };
  const client = createClient({
    url: `${t.url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: BrowserSocket,
    connectionParams: options.params ?? { scope: 'operator' },
    retryAttempts: 0,
    lazy: true,
    on: { closed: (event) => void stream.closes.push((event as CloseEvent).code) },
  });
  client.subscribe<Data>({ query: FLEET, variables: { mode: options.mode ?? null } }, {
    next: (r) => void (r.errors ? stream.errors.push(...r.errors) : stream.frames.push(r.data.adminFleet)),
    error: (e) => void stream.errors.push(e),
    complete: () => {},
  });
  return Object.assign(stream, { dispose: () => client.dispose() });
}

describe('adminFleet: the operators’ live fleet over graphql-ws (issue #29)', { timeout: 120_000 }, () => {
  let t: TestApp;
  let support: string;
  beforeAll(async () => {
    t = await startOrdersApp();
    support = (await signedInOperator(t, 'support@ops.example.cl', 'support')).cookie;
  });
  afterAll(() => t.stop());

  it('the first frame lists the mode’s couriers; then a courier’s duty and position come through; the other mode never does', async () => {
    const waiting = await createCourier(t, { mode: 'test' });
    const stream = fleetStream(t, { cookie: support, mode: 'test' });
    try {
      await eventually(() => expect(stream.frames.length).toBeGreaterThan(0));
      expect(stream.errors).toEqual([]);
      expect(stream.frames[0]!.couriers.find((c) => c.courierId === waiting.id)).toMatchObject({ mode: 'test', dutyStatus: 'off_duty', active: true });

      const moving = await courierOnDuty(t, { mode: 'test', at: north(PLACES.providencia, 100) });
      const live = await courierOnDuty(t, { mode: 'live', at: north(PLACES.providencia, 100) });
      const target = north(PLACES.providencia, 900);
      expectOk(await moving.position(target));
      expectOk(await live.position(target));
      const last = () => stream.frames.flatMap((f) => f.couriers).filter((c) => c.courierId === moving.id).at(-1);
      await eventually(() => expect(last()).toMatchObject({ dutyStatus: 'available', location: { lat: expect.closeTo(target.lat, 5), lng: expect.closeTo(target.lng, 5) } }));
      // Given an order, it is busy on that job.
      const shop = await t.createMerchant({ name: 'Tienda Mapa' });
      const created = expectOk(await merchantApi(t, shop.testKey).create(formA()), 201).body;
      await eventually(() => expect(last()).toMatchObject({ dutyStatus: 'busy', jobKind: 'order', jobId: created.booking_id }));
      expectOk(await merchantApi(t, shop.testKey).cancel(created.booking_id));
      await eventually(() => expect(last()).toMatchObject({ dutyStatus: 'available', jobId: null }));
      expectOk(await moving.duty(false));
      await eventually(() => expect(last()?.dutyStatus).toBe('off_duty'));
      expect(stream.frames.flatMap((f) => f.couriers).some((c) => c.courierId === live.id || c.mode !== 'test')).toBe(false);
    } finally {
      await stream.dispose();
    }
  });

  it('2,000 moving couriers: each frame carries a courier at most once, and every courier ends at its last report', async () => {
    const { store, bus } = t.app.container;
    const fleet = Array.from({ length: 2000 }, (_, i) => courierFixture({ mode: 'test', name: `Flota ${i}`, status: 'available', location: PLACES.santiago, locationAt: new Date().toISOString() }));
    for (const c of fleet) await store.couriers.insert(c);
    const stream = fleetStream(t, { cookie: support, mode: 'test' });
    try {
      await eventually(() => expect(stream.frames.length).toBeGreaterThan(0));
      expect(new Set(stream.frames[0]!.couriers.map((c) => c.courierId))).toEqual(new Set([...fleet.map((c) => c.id), ...stream.frames[0]!.couriers.map((c) => c.courierId)]));
      const REPORTS = 5;
      const finalOf = (i: number) => north(PLACES.santiago, 10 * (i + 1) * REPORTS);
      const base = Date.now();
      for (let r = 1; r <= REPORTS; r++) {
        await Promise.all(fleet.map((c, i) => bus.publish({
          type: 'courier.position', courierId: c.id, mode: 'test', location: north(PLACES.santiago, 10 * (i + 1) * r), orderIds: [], at: new Date(base + r).toISOString(),
        })));
      }
      const latest = new Map<string, Frame['couriers'][number]>();
      await eventually(() => {
        for (const frame of stream.frames.slice(1)) for (const c of frame.couriers) latest.set(c.courierId, c);
        fleet.forEach((c, i) => expect(latest.get(c.id)?.location?.lat, c.id).toBeCloseTo(finalOf(i).lat, 5));
      }, 60_000);
      for (const frame of stream.frames) {
        const ids = frame.couriers.map((c) => c.courierId);
        expect(new Set(ids).size).toBe(ids.length);
      }
      // 10,000 reports came through as a handful of frames (one per interval that had any).
      expect(stream.frames.length).toBeLessThan(fleet.length * REPORTS);
    } finally {
      await stream.dispose();
    }
  });

  it('a merchant member’s cookie, a courier token, or an operator cookie from another origin never open the stream', async () => {
    const shop = await t.createMerchant({ name: 'Tienda Flota' });
    const member = await memberSignedIn(t, shop.merchantId, 'owner@flota.cl', 'owner');
    const courier = await createCourier(t, { mode: 'test' });
    const streams = [
      fleetStream(t, { cookie: member }),
      fleetStream(t, { cookie: member, params: {} }),
      fleetStream(t, { params: { authorization: `Bearer ${courier.token}` } }),
      fleetStream(t, { cookie: support, origin: 'https://evil.example.com' }),
    ];
    try {
      await eventually(() => {
        for (const stream of streams) expect(stream.errors.length + stream.closes.length, JSON.stringify(stream)).toBeGreaterThan(0);
      });
      for (const stream of streams) expect(stream.frames).toEqual([]);
    } finally {
      for (const stream of streams) await stream.dispose();
    }
    // Nobody watches any more: the node's fleet hub stopped and forgot the couriers.
    await eventually(() => expect(t.app.container.services.fleet.sizes()).toEqual({ subscribers: 0, known: 0 }));
  });
});
