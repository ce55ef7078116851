import type { Clock } from '../ports/clock.js';
import type { EventBus } from '../ports/event-bus.js';
import type { IdSource } from '../ports/ids.js';
import type { Store } from '../ports/store.js';
import type { MerchantPrincipal } from './auth.js';
import type { DispatchService } from './dispatch.js';
import { parseIdCursor } from './cursors.js';
import { AppError } from './errors.js';
import type { OrderTransitions } from './orders/transitions.js';
import type { WebhookOutbox } from './webhooks/outbox.js';
import type { ConsolidateCommand } from './orders/schemas.js';
import { vehicleTariff, type Tariff } from './tariffs.js';
import type { Batch, Courier, Order } from './types.js';
import { assertPermitted } from './members/roles.js';
import { merchantScope, type IdempotencyService, type IdempotentCall } from './idempotency.js';
import { ORDER_NOTES } from './orders/notes.js';

/** A batch holds at most this many stops: a longer route would break every delivery estimate. */
export const MAX_ORDERS_PER_BATCH = 8;
/** Orders a single consolidation call looks at. */
const SCAN_LIMIT = 500;
/** A batch run's zone: pickups in one geohash cell of this length (about 4.9 × 4.9 km). */
export const BATCH_RUN_ZONE_LENGTH = 5;

/** A batched-rate order whose window is open: it may join a batch now (and go before its window closes). */
export function isInBatchWindow(order: Order, now: Date): boolean {
  return !!order.batchWindow && Date.parse(order.batchWindow.opensAt) <= now.getTime();
}

export type BatchService = ReturnType<typeof createBatchService>;

/** Packs orders into batches by weight: heaviest first, each into the first batch it fits (first-fit decreasing). */
export function packOrders(orders: Order[], capacityKg: number, maxOrders = MAX_ORDERS_PER_BATCH): Order[][] {
  const bins: Array<{ orders: Order[]; kg: number }> = [];
  for (const order of [...orders].sort((a, b) => b.weightKg - a.weightKg || a.createdAt.localeCompare(b.createdAt))) {
    if (order.weightKg > capacityKg) continue;
    const bin = bins.find((b) => b.kg + order.weightKg <= capacityKg && b.orders.length < maxOrders);
    if (bin) {
      bin.orders.push(order);
      bin.kg += order.weightKg;
    } else bins.push({ orders: [order], kg: order.weightKg });
  }
  // One order is not a batch: it keeps its own dispatch.
  return bins.filter((b) => b.orders.length >= 2).map((b) => b.orders);
}

/** The operation of consolidateOrders' idempotency records. */
export const CONSOLIDATE_ORDERS = 'orders.consolidate';

/**
 * Consolidation: the caller's orders not yet picked up whose pickup lies in the geohash zone are
 * packed into batches that fit the target vehicle; assigned ones are taken back from their
 * couriers first. Each batch is dispatched to one courier with that vehicle (or waits for one).
 */
export function createBatchService(deps: { store: Store; dispatch: DispatchService; transitions: OrderTransitions; outbox: WebhookOutbox; bus: EventBus; clock: Clock; ids: IdSource; tariff: Tariff; idempotency: IdempotencyService }) {
  const { store, dispatch, transitions, outbox, bus, clock, ids, tariff, idempotency } = deps;
  const now = () => clock.now().toISOString();

  /**
   * Takes an assigned order back from its courier (before pickup), so it can join a batch. The
   * caller frees the courier once the batch is settled: freed earlier, it would be offered the
   * half-built pending batch.
   */
  async function unassign(order: Order): Promise<Order | null> {
    if (order.status === 'new') return order;
    return transitions.tryTransition({
      order, to: 'new', actor: { kind: 'system', id: null }, patch: { courierId: null }, reason: ORDER_NOTES.consolidated,
    });
  }

  /**
   * Writes a batch of one merchant's orders (assigned ones are taken back first) and dispatches it to
   * one courier with its vehicle, or leaves it pending; null when none of the orders could join.
   */
  async function formBatch(options: { group: Order[]; geohashZone: string; vehicleType: Batch['vehicleType']; courier?: Courier }): Promise<Batch | null> {
    const { group } = options;
    const { merchantId, mode } = group[0]!;
    const batch: Batch = {
      id: ids.next('bt'), merchantId, mode, geohashZone: options.geohashZone, vehicleType: options.vehicleType,
      orderIds: group.map((o) => o.id), totalWeightKg: group.reduce((kg, o) => kg + o.weightKg, 0),
      courierId: null, status: 'pending', createdAt: now(), updatedAt: now(),
    };
    // Written with its batch.created webhooks; members that cannot join are removed below.
    const { deliveries, feed } = await outbox.batchCreatedWrite(batch);
    await store.batches.insert(batch, deliveries, feed);
    const members: Order[] = [];
    const freed: Array<{ courierId: string; jobId: string }> = [];
    for (const order of group) {
      const free = await unassign(order);
      if (free && order.courierId) freed.push({ courierId: order.courierId, jobId: order.id });
      const joined = free && (await store.orders.apply({ id: free.id, from: ['new'], patch: { batchId: batch.id } }));
      if (joined && !joined.courierId) members.push(joined);
    }
    const totalWeightKg = members.reduce((kg, o) => kg + o.weightKg, 0);
    const settled = await store.batches.update({
      id: batch.id, from: ['pending'], updatedAt: now(),
      patch: { orderIds: members.map((o) => o.id), totalWeightKg, ...(members.length === 0 && { status: 'cancelled' as const }) },
    });
    const releaseFreed = async () => {
      for (const job of freed) await dispatch.releaseCourier(job);
    };
    if (!settled || members.length === 0) {
      await releaseFreed();
      return null;
    }
    await bus.publish({ type: 'batch.created', batchId: batch.id, merchantId, mode, orderIds: settled.orderIds, at: now() });
    // The round's bundle goes to the courier it chose (else it waits pending, offered like any batch).
    const dispatched = options.courier
      ? ((await dispatch.dispatchBatchTo(settled, options.courier)) && (await store.batches.findById(batch.id))) || settled
      : await dispatch.dispatchBatch({ batch: settled, near: members[0]!.pickup });
    await releaseFreed(); // a freed courier may now take this very batch
    return (await store.batches.findById(batch.id)) ?? dispatched;
  }

  /**
   * Dispatches a queued order that is due. A batched-rate order whose window has closed goes with a
   * batch run: the merchant's batched orders waiting in its zone ride with it as far as its vehicle
   * carries them (oldest first; they leave before their own windows close, never after), or it goes
   * alone. Any other order is dispatched as usual.
   */
  async function dispatchQueued(options: { order: Order }): Promise<Order> {
    const { order } = options;
    if (!order.batchWindow || order.batchId || !dispatch.isDue(order)) return dispatch.dispatchOrder({ order });
    const geohashZone = order.pickup.geohash.slice(0, BATCH_RUN_ZONE_LENGTH);
    const waiting = await store.orders.listConsolidatable({ merchantId: order.merchantId, mode: order.mode, geohashPrefix: geohashZone, limit: SCAN_LIMIT });
    const vehicle = vehicleTariff(tariff, order.vehicleType)!;
    const group = [order];
    let kg = order.weightKg;
    for (const companion of waiting) {
      if (group.length >= MAX_ORDERS_PER_BATCH) break;
      if (companion.id === order.id || companion.status !== 'new' || companion.courierId || !isInBatchWindow(companion, clock.now())) continue;
      if (kg + companion.weightKg > vehicle.max_kg) continue;
      group.push(companion);
      kg += companion.weightKg;
    }
    if (group.length < 2) return dispatch.dispatchOrder({ order });
    await formBatch({ group, geohashZone, vehicleType: vehicle.type });
    return (await store.orders.findById(order.id)) ?? order;
  }

  /**
   * Dynamic bundling (issue #37): the round's bundle of one merchant's `new` orders becomes a batch
   * given to the courier the round chose; true when that courier took it.
   */
  async function commitBundle(options: { orders: Order[]; courierId: string }): Promise<boolean> {
    const courier = await store.couriers.findById(options.courierId);
    if (!courier || courier.status !== 'available' || courier.accountStatus !== 'active' || !dispatch.isLive(courier)) return false;
    const group = options.orders.filter((o) => o.status === 'new' && !o.batchId && !o.courierId);
    if (group.length < 2) return false;
    const batch = await formBatch({ group, geohashZone: group[0]!.pickup.geohash.slice(0, BATCH_RUN_ZONE_LENGTH), vehicleType: courier.vehicle, courier });
    return batch?.status === 'assigned' && batch.courierId === courier.id;
  }

  async function consolidateOrders(options: { principal: MerchantPrincipal; input: ConsolidateCommand } & IdempotentCall): Promise<Batch[]> {
    const { principal, input } = options;
    return idempotency.runCommand(options, { scope: merchantScope(principal, CONSOLIDATE_ORDERS), request: { input } }, () => consolidate({ principal, input }));
  }

  async function consolidate(options: { principal: MerchantPrincipal; input: ConsolidateCommand }): Promise<Batch[]> {
    assertPermitted(options.principal, 'dispatch');
    const { input } = options;
    const { merchant, mode } = options.principal;
    const vehicle = vehicleTariff(tariff, input.targetCarType);
    if (!vehicle) throw new AppError('VALIDATION_ERROR', `No tariff for vehicle ${input.targetCarType}`);
    // A scheduled order joins a batch only once its window opens (a batch is dispatched at once).
    // A scheduled order joins a batch only once its window opens (a batch is dispatched at once);
    // a batched-rate order, as soon as it waits for companions.
    const candidates = (await store.orders.listConsolidatable({ merchantId: merchant.id, mode, geohashPrefix: input.geohashZone, limit: SCAN_LIMIT }))
      // A multi-stop order is already a route of its own: never consolidated.
      .filter((o) => !o.stops && (dispatch.isDue(o) || isInBatchWindow(o, clock.now())));
    const created: Batch[] = [];
    for (const group of packOrders(candidates, vehicle.max_kg)) {
      const batch = await formBatch({ group, geohashZone: input.geohashZone, vehicleType: vehicle.type });
      if (batch) created.push(batch);
    }
    return created;
  }

  async function listBatches(options: { principal: MerchantPrincipal; after?: string; limit?: number }) {
    return store.batches.list({
      merchantId: options.principal.merchant.id, mode: options.principal.mode,
      limit: Math.min(Math.max(options.limit ?? 20, 1), 100), ...(options.after !== undefined && { after: parseIdCursor('bt', options.after) }),
    });
  }

  async function getBatch(options: { principal: MerchantPrincipal; id: string }): Promise<Batch> {
    const batch = await store.batches.findById(options.id);
    if (!batch || batch.merchantId !== options.principal.merchant.id || batch.mode !== options.principal.mode) {
      throw new AppError('NOT_FOUND', 'No such batch');
    }
    return batch;
  }

  /** The orders of a batch the caller already holds, in the batch's order, riding in its vehicle. */
  async function ordersOf(options: { batch: Pick<Batch, 'id' | 'orderIds' | 'vehicleType'> }): Promise<Order[]> {
    const found = await Promise.all(options.batch.orderIds.map((id) => store.orders.findById(id)));
    return found
      .filter((o): o is Order => o !== null)
      .map((o) => (o.batchId === options.batch.id ? Object.assign({}, o, { vehicleType: options.batch.vehicleType }) : o));
  }

  return { consolidateOrders, dispatchQueued, commitBundle, listBatches, getBatch, ordersOf };
}
