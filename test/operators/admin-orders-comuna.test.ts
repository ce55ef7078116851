import ngeohash from 'ngeohash';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadComunas } from '../../src/adapters/geocoder/gazetteer.js';
import { COMUNA_CELLS_MAX, createComunaZones } from '../../src/domain/orders/comuna-zones.js';
import { creation, order as orderFixture } from '../contract/fixtures.js';
import type { TestApp } from '../helpers/app.js';
import { north, PLACES, startOrdersApp } from '../orders/support.js';
import { gqlOps, signedInOperator } from './support.js';

const BY_COMUNA = `query ($comuna: String, $zone: String, $first: Int, $after: String, $mode: Mode) {
  adminOrders(comuna: $comuna, zone: $zone, first: $first, after: $after, mode: $mode) { orders { id } nextCursor } }`;

describe('adminOrders(comuna:): the orders picked up in a comuna, sought on the pickup-zone index (issue #38)', { timeout: 120_000 }, () => {
  let t: TestApp;
  let support = '';
  const ids: Record<'providencia' | 'providencia2' | 'nunoa' | 'santiago', string> = { providencia: '', providencia2: '', nunoa: '', santiago: '' };

  beforeAll(async () => {
    t = await startOrdersApp();
    const { merchantId } = await t.createMerchant({ name: 'Farmacia Central' });
    support = (await signedInOperator(t, 'soporte@ops.example.cl', 'support')).cookie;
    const spots = { providencia: PLACES.providencia, providencia2: north(PLACES.providencia, -600), nunoa: PLACES.nunoa, santiago: PLACES.santiago };
    let minute = 60;
    for (const [name, at] of Object.entries(spots) as Array<[keyof typeof ids, { lat: number; lng: number }]>) {
      const o = orderFixture({ merchantId, status: 'completed', pickupGeohash: ngeohash.encode(at.lat, at.lng, 9), createdAt: new Date(Date.now() - minute-- * 60_000).toISOString() });
      await t.app.container.store.orders.create(creation(o));
      ids[name] = o.id;
    }
  });
  afterAll(async () => t.stop());

  const list = async (variables: Record<string, unknown>) => {
    const res = await gqlOps(t, support, BY_COMUNA, { variables });
    expect(res.body.errors).toBeUndefined();
    return res.body.data.adminOrders as { orders: Array<{ id: string }>; nextCursor: string | null };
  };

  it('lists a comuna’s orders newest first (accents and case ignored), never a neighbour’s, and pages by cursor', async () => {
    expect((await list({ comuna: 'Providencia' })).orders.map((o) => o.id)).toEqual([ids.providencia2, ids.providencia]);
    expect((await list({ comuna: 'ñuñoa' })).orders.map((o) => o.id)).toEqual([ids.nunoa]);
    expect((await list({ comuna: 'Santiago', mode: 'live' })).orders.map((o) => o.id)).toEqual([ids.santiago]);
    const first = await list({ comuna: 'Providencia', first: 1 });
    expect(first.orders.map((o) => o.id)).toEqual([ids.providencia2]);
    const second = await list({ comuna: 'Providencia', first: 1, after: first.nextCursor });
    expect(second.orders.map((o) => o.id)).toEqual([ids.providencia]);
    expect(second.nextCursor).toBeNull();
  });

  it('names the comunas it takes, and refuses an unknown comuna or a comuna with a zone', async () => {
    const names = (await gqlOps(t, support, '{ adminComunas }')).body.data.adminComunas as string[];
    expect(names).toContain('Providencia');
    expect(names).toContain('Ñuñoa');
    for (const variables of [{ comuna: 'Atlantis' }, { comuna: 'Providencia', zone: '66jc' }]) {
      const res = await gqlOps(t, support, BY_COMUNA, { variables });
      expect(res.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('comuna zones', () => {
  const zones = createComunaZones(loadComunas());
  it('every comuna is a handful of geohash-5 cells, including the cell of its own point', () => {
    for (const name of zones.names()) {
      const found = zones.find(name)!;
      expect(found.cells.length, name).toBeGreaterThan(0);
      expect(found.cells.length, name).toBeLessThanOrEqual(COMUNA_CELLS_MAX);
      for (const cell of found.cells) expect(cell).toMatch(/^[0-9b-hjkmnp-z]{5}$/);
    }
    const providencia = zones.find('PROVIDENCIA')!;
    expect(providencia.cells).toContain(ngeohash.encode(PLACES.providencia.lat, PLACES.providencia.lng, 5));
    expect(zones.contains('Providencia', PLACES.providencia)).toBe(true);
    expect(zones.contains('Providencia', PLACES.nunoa)).toBe(false);
  });
});
