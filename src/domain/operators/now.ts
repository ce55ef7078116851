import { z } from 'zod';
import type { Clock } from '../../ports/clock.js';
import type { Store } from '../../ports/store.js';
import { isOrderActive } from '../orders/state-machine.js';
import { OPERATOR_LIST_EXAMINE_MAX } from '../orders/operator-orders.js';
import { isSandboxRunCourier } from '../sandbox-run-couriers.js';
import { MODES, ORDER_STATUSES, type Courier, type Order, type WebhookEndpoint } from '../types.js';
import { parseInput } from '../validation.js';

/**
 * How many of each kind the ops home reads: it counts up to this many ("100+" past it) and the
 * operator follows a link to the full list for more.
 */
export const OPS_NOW_CAP = 100;

const IN_PROGRESS = ORDER_STATUSES.filter((s) => isOrderActive({ status: s }));

export const opsNowSchema = z.strictObject({ mode: z.enum(MODES) });
/** Ids to name (couriers or merchants), at most OPS_NOW_CAP. */
export const idsToNameSchema = z.strictObject({ ids: z.array(z.string().trim().min(1).max(64)).max(OPS_NOW_CAP) });

/** Up to OPS_NOW_CAP items, and whether more were there. */
export interface Capped<T> {
  items: T[];
  more: boolean;
}

export interface OpsNow {
  mode: (typeof MODES)[number];
  at: string;
  lateOrders: Capped<Order>;
  unassignedOrders: Capped<Order>;
  couriersOnDuty: Capped<Courier>;
  failingWebhooks: Capped<{ endpoint: WebhookEndpoint; merchantName: string | null }>;
}

const capped = <T>(list: T[]): Capped<T> => ({ items: list.slice(0, OPS_NOW_CAP), more: list.length > OPS_NOW_CAP });

export type OpsNowService = ReturnType<typeof createOpsNow>;

/**
 * The operators' home (issue #38): what needs a person now in one mode, each list read on an index
 * with a bound (never a walk over the day's orders), newest first.
 */
export function createOpsNow(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;

  const merchantNames = async (ids: string[]) =>
    new Map(await Promise.all([...new Set(ids)].map(async (id) => [id, (await store.merchants.findById(id))?.name ?? null] as const)));

  async function readNow(options: { input: unknown }): Promise<OpsNow> {
    const { mode } = parseInput(opsNowSchema, options.input);
    const at = clock.now().toISOString();
    const page = { modes: [mode], limit: OPS_NOW_CAP + 1, examineAtMost: OPERATOR_LIST_EXAMINE_MAX };
    const [late, unassigned, available, busy, troubled] = await Promise.all([
      // orders_late: only orders in progress past their ETA or window end are read.
      store.orders.listAcrossMerchants({ statuses: IN_PROGRESS, lateAt: at, ...page }),
      store.orders.listAcrossMerchants({ statuses: ['new'], ...page }),
      store.couriers.listPage({ mode, status: 'available', limit: OPS_NOW_CAP + 1 }),
      store.couriers.listPage({ mode, status: 'busy', limit: OPS_NOW_CAP + 1 }),
      store.webhooks.listTroubledEndpoints({ mode, limit: OPS_NOW_CAP + 1 }),
    ]);
    // A sandbox run's couriers are the run's, not the fleet's (as on the couriers page).
    const onDuty = [...busy, ...available].filter((c) => !isSandboxRunCourier(c));
    const names = await merchantNames(troubled.slice(0, OPS_NOW_CAP).map((e) => e.merchantId));
    return {
      mode,
      at,
      lateOrders: capped(late.orders),
      unassignedOrders: capped(unassigned.orders),
      couriersOnDuty: capped(onDuty),
      failingWebhooks: capped(troubled.map((endpoint) => ({ endpoint, merchantName: names.get(endpoint.merchantId) ?? null }))),
    };
  }

  /** Couriers' names by id (each a read by key); an unknown id is left out. */
  async function nameCouriers(options: { input: unknown }): Promise<Array<{ id: string; name: string }>> {
    const { ids } = parseInput(idsToNameSchema, options.input);
    const found = await Promise.all([...new Set(ids)].map((id) => store.couriers.findById(id)));
    return found.flatMap((c) => (c ? [{ id: c.id, name: c.name }] : []));
  }

  /** Merchants' names by id (each a read by key); an unknown id is left out. */
  async function nameMerchants(options: { input: unknown }): Promise<Array<{ id: string; name: string }>> {
    const { ids } = parseInput(idsToNameSchema, options.input);
    const found = await Promise.all([...new Set(ids)].map((id) => store.merchants.findById(id)));
    return found.flatMap((m) => (m ? [{ id: m.id, name: m.name }] : []));
  }

  return { readNow, nameCouriers, nameMerchants };
}
