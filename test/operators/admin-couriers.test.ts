import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { gqlOps, signedInOperator } from './support.js';

const COURIERS = `query ($mode: Mode, $status: CourierDutyStatus, $first: Int, $after: ID) {
  adminCouriers(mode: $mode, status: $status, first: $first, after: $after) {
    couriers { id name mode vehicle plate dutyStatus accountStatus lastPosition { lat lng at } job { kind id } } nextCursor } }`;

describe('adminCouriers: every courier, keyset-paged, for every operator role', () => {
  let t: TestApp;
  let cookie: string;
  const ids: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({ env: { SANDBOX_SIMULATOR: 'false', RATE_LIMIT_PER_MIN: '100000', PUBLIC_RATE_LIMIT_PER_MIN: '100000' } });
    cookie = (await signedInOperator(t, 'sol@ops.example.cl', 'support')).cookie;
    const cli = t.app.container.services.auditedAdmin.as({ kind: 'cli' });
    for (const [n, mode] of [[1, 'live'], [2, 'live'], [3, 'test'], [4, 'live'], [5, 'live']] as const) {
      ids.push((await cli.createCourier({ input: { name: `Courier ${n}`, phone: `+5691234000${n}`, vehicle: 'car', plate: `CAR00${n}`, mode } })).courierId);
    }
    await t.app.container.store.couriers.setLocations([{ id: ids[0]!, location: { lat: -33.43, lng: -70.61 }, at: '2026-11-28T10:00:00.000Z', prompt: true }]);
    await t.app.container.store.couriers.setStatus({ id: ids[1]!, status: 'available', updatedAt: '2026-11-28T10:00:00.000Z' });
  });
  afterAll(() => t?.stop());

  const list = async (variables: Record<string, unknown>) => {
    const res = await gqlOps(t, cookie, COURIERS, { variables });
    expect(res.body.errors).toBeUndefined();
    return res.body.data.adminCouriers as { couriers: Array<{ id: string; mode: string; dutyStatus: string; lastPosition: unknown }>; nextCursor: string | null };
  };

  it('pages a mode in id order with nextCursor until the last page, and shows the last position with its time', async () => {
    const live = ids.filter((_, i) => i !== 2);
    const first = await list({ mode: 'live', first: 3 });
    expect(first.couriers.map((c) => c.id)).toEqual(live.slice(0, 3));
    expect(first.nextCursor).toBe(live[2]);
    const second = await list({ mode: 'live', first: 3, after: first.nextCursor });
    expect(second.couriers.map((c) => c.id)).toEqual(live.slice(3));
    expect(second.nextCursor).toBeNull();
    expect(first.couriers[0]!.lastPosition).toEqual({ lat: -33.43, lng: -70.61, at: '2026-11-28T10:00:00.000Z' });
    expect(first.couriers[1]!.lastPosition).toBeNull();
  });

  it('filters by duty status and mode together', async () => {
    expect((await list({ status: 'available' })).couriers.map((c) => c.id)).toEqual([ids[1]]);
    expect((await list({ mode: 'test' })).couriers.map((c) => c.id)).toEqual([ids[2]]);
  });

  it('refuses a cursor that is not a courier id instead of starting over', async () => {
    const res = await gqlOps(t, cookie, COURIERS, { variables: { after: 'm_01ABC' } });
    expect(res.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
  });

  it('is not readable without an operator session', async () => {
    const res = await gqlOps(t, null, COURIERS, { variables: {} });
    expect(res.body.data?.adminCouriers ?? null).toBeNull();
  });
});
