import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite/store.js';
import { createComunaZones } from '../../src/domain/orders/comuna-zones.js';
import { createOperatorOrders } from '../../src/domain/orders/operator-orders.js';
import type { Order } from '../../src/domain/types.js';
import type { Store } from '../../src/ports/store.js';
import { at, creation, order, storeMerchant } from '../contract/fixtures.js';

/**
 * The operators' list reads at most `examineAtMost` orders a page (issue #41): a filter tested on
 * the orders read gives partial pages, each with a nextCursor, and following them finds every match.
 */
describe("operators' list: partial pages at the bound of orders read", () => {
  const dir = mkdtempSync(join(tmpdir(), 'exd-ops-bound-'));
  let store: Store;
  const inZone: Order[] = [];
  let operatorOrders: ReturnType<typeof createOperatorOrders>;

  beforeAll(async () => {
    store = createSqliteStore({ dataDir: dir });
    const m = await storeMerchant(store);
    // Newest first: 2 in zone 66jc, 9 outside it, 1 more in it.
    for (let i = 0; i < 12; i++) {
      const o = order({ merchantId: m, createdAt: at(100 - i), pickupGeohash: i < 2 || i === 11 ? '66jcc4fm8' : '66j9xbcde', estimatedDeliveryAt: at(5000) });
      await store.orders.create(creation(o));
      if (i < 2 || i === 11) inZone.push(o);
    }
    const unused = {} as never;
    operatorOrders = createOperatorOrders({ store, geoIndex: unused, dispatch: unused, transitions: unused, orders: unused, clock: { now: () => new Date(at(1000)) }, comunas: createComunaZones([]), examineAtMost: 4 });
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a zone tested on each order read: pages of at most `first`, partial ones with a cursor, the walk finds all three', async () => {
    const seen: string[] = [];
    const sizes: number[] = [];
    let after: string | undefined;
    for (let guard = 0; guard < 20; guard++) {
      const page = await operatorOrders.listOrders({ input: { zone: '66jc', first: 3, ...(after && { after }) } });
      seen.push(...page.orders.map((o) => o.id));
      sizes.push(page.orders.length);
      if (!page.nextCursor) break;
      after = page.nextCursor;
    }
    expect(seen).toEqual(inZone.map((o) => o.id));
    // 4 orders read a page: partial pages (some empty, each with a cursor) until the last match.
    expect(sizes.length).toBeGreaterThan(2);
    expect(sizes.some((n) => n === 0)).toBe(true);
  });

  it('a zone of 5 characters is sought: one page with every match, no cursor', async () => {
    const page = await operatorOrders.listOrders({ input: { zone: '66jcc', first: 10 } });
    expect({ ids: page.orders.map((o) => o.id), nextCursor: page.nextCursor }).toEqual({ ids: inZone.map((o) => o.id), nextCursor: null });
  });
});
