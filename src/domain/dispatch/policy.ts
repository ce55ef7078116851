import type { Order } from '../types.js';

/**
 * How dispatch decides (issue #37). `planned`: an order with a preparation time waits `new` until a
 * courier must leave to be at the pickup by its ready time; every `roundMs` one minimum-cost
 * assignment of the available couriers to the orders ready within `horizonMs` commits the pairs that
 * cannot wait for the next round (dispatch/planner.ts). `greedy`: the nearest courier at creation,
 * queued orders oldest first (the behaviour before). Orders without a preparation time, batched-rate
 * orders and sandbox orders are dispatched at once either way (the spec's immediate dispatch).
 */
export interface DispatchPolicy {
  kind: 'planned' | 'greedy';
  roundMs: number;
  /** A courier is committed when it must leave within this of the latest departure that reaches the pickup by the ready time. */
  commitSlackMs: number;
  /** Orders whose ready time is further away than this are not in a round yet. */
  horizonMs: number;
  /** Time at the pickup counter before the courier leaves: a courier is never given a pickup it cannot finish before its shift ends. */
  handoverMs: number;
  /** Busy couriers whose job ends within the horizon take part in the round where their job ends; an order matched to one waits for it. */
  lookAhead: boolean;
  /** Each job is priced against its this many nearest couriers (and each courier against its nearest jobs); the rest are not in its round. */
  candidates: number;
  /** Dynamic bundling: one merchant's orders ready within `readyWithinMs` of each other whose drop-offs lie on one way go as one batch. */
  bundle: {
    enabled: boolean; readyWithinMs: number; maxOrders: number; maxDetourRatio: number;
    /** How much later than its estimated delivery (set when it was placed, with no room for a detour) a bundled order may arrive. */
    promiseSlackMs: number;
  };
}

export const DEFAULT_DISPATCH_POLICY: DispatchPolicy = {
  kind: 'planned',
  roundMs: 30_000,
  commitSlackMs: 480_000,
  horizonMs: 45 * 60_000,
  handoverMs: 120_000,
  lookAhead: true,
  candidates: 16,
  bundle: { enabled: true, readyWithinMs: 5 * 60_000, maxOrders: 3, maxDetourRatio: 1.3, promiseSlackMs: 300_000 },
};

/** When the parcel is ready: its creation plus the preparation time (the request's, the quote's or the merchant's default), or its pickup window's opening if later. */
export function readyAtOf(order: Pick<Order, 'createdAt' | 'prepTimeMins' | 'scheduledPickupAt'>): number {
  const prepared = Date.parse(order.createdAt) + order.prepTimeMins * 60_000;
  return order.scheduledPickupAt ? Math.max(prepared, Date.parse(order.scheduledPickupAt)) : prepared;
}

/** Whether the periodic round (not the creation or a freed courier) dispatches this order. */
export function isHeldForRound(policy: DispatchPolicy, order: Order): boolean {
  return policy.kind === 'planned' && order.mode === 'live' && order.prepTimeMins > 0 && !order.batchWindow;
}
