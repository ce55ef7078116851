import { isOrderActive } from '../orders/state-machine.js';
import type { Order } from '../types.js';

/** Active orders a stream re-reads after an outage (the most recently shown). */
const ACTIVE_REREAD_MAX = 200;
/** Orders whose last shown sequence a stream remembers (so a resync does not repeat them). */
const SHOWN_MAX = 2000;

/**
 * What a many-order status stream (a merchant's, a courier's) has shown, so that after a bus outage
 * it can send what it missed: the current status of each order that changed since the stream
 * started and whose sequence moved since the stream last showed it. Which orders to look at is the
 * stream's (`candidates`: the active orders it showed, plus the ones it may not know yet, such as
 * its merchant's newest); a resync is not a replay of history.
 */
export function createStatusResync(options: { startedAt: string; candidates: (activeShown: string[]) => Promise<Array<Order | null>> }) {
  /** orderId → last sequence shown and whether the order was still active then; oldest first. */
  const shown = new Map<string, { sequence: number; active: boolean }>();

  function remember(orderId: string, sequence: number, active: boolean): void {
    shown.delete(orderId); // re-inserted last: the map stays ordered by recency
    shown.set(orderId, { sequence, active });
    if (shown.size > SHOWN_MAX) shown.delete(shown.keys().next().value!);
  }

  return {
    /** The stream showed this status (from a bus message). */
    saw(order: Pick<Order, 'id' | 'sequence' | 'status'>): void {
      remember(order.id, order.sequence, isOrderActive(order));
    },
    /** The orders whose current status the stream missed; each is remembered as shown. */
    async missed(): Promise<Order[]> {
      const active = [...shown].filter(([, s]) => s.active).map(([id]) => id).slice(-ACTIVE_REREAD_MAX);
      const found = await options.candidates(active);
      const missed: Order[] = [];
      for (const order of found) {
        if (!order || order.updatedAt < options.startedAt || shown.get(order.id)?.sequence === order.sequence) continue;
        remember(order.id, order.sequence, isOrderActive(order));
        missed.push(order);
      }
      return missed;
    },
  };
}
