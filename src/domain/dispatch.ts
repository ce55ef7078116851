import type { Clock } from '../ports/clock.js';
import type { CourierGeoIndex } from '../ports/geo-index.js';
import type { Store } from '../ports/store.js';
import { distanceMeters } from './geo.js';
import { vehicleTariff, type Tariff } from './tariffs.js';
import type { Batch, Courier, CourierJob, Order, VehicleType } from './types.js';
import type { Actor, OrderTransitions } from './orders/transitions.js';
import { timeScaleOf } from './sandbox-time.js';
import { endShift, isAccountActive, isShiftOver, pickupAfterShiftEnd } from './shifts.js';

/**
 * How many of the nearest index entries dispatch looks at before queueing the order: each is
 * checked against the store first, so stale ones (evicted on the way) cannot hide a free courier.
 */
const CANDIDATES = 25;

export type DispatchService = ReturnType<typeof createDispatchService>;

/**
 * Dispatch: the nearest available courier whose vehicle carries the order is claimed with a
 * compare-and-set in the store (the geo index only proposes); without one the order stays `new`
 * in the queue, which drains whenever a courier comes on duty or frees up.
 */
export function createDispatchService(deps: {
  store: Store;
  geoIndex: CourierGeoIndex;
  transitions: OrderTransitions;
  clock: Clock;
  tariff: Tariff;
  sandboxSpeed: number;
  /** A courier with no position report for this long is not dispatchable (and leaves the geo index). */
  staleAfterMs: number;
  /**
   * Orders the periodic dispatch round commits (dispatch/planner.ts): neither dispatched at creation
   * nor offered to a courier that frees up, they wait `new` until a courier must leave for them.
   */
  heldForRound?: (order: Order) => boolean;
}) {
  const heldForRound = deps.heldForRound ?? (() => false);
  const { store, geoIndex, transitions, clock, tariff } = deps;
  const vehicleOrder = tariff.vehicles.map((v) => v.type);
  /** Vehicle classes that can carry what `type` carries. */
  const carriers = (type: VehicleType) => vehicleOrder.slice(vehicleOrder.indexOf(type));
  /** Order classes a courier with this vehicle can carry. */
  const carriable = (vehicle: VehicleType) => vehicleOrder.slice(0, vehicleOrder.indexOf(vehicle) + 1);

  function approachMinutes(courier: Courier, order: Order): number {
    const speed = vehicleTariff(tariff, courier.vehicle)?.speed_kmh ?? 20;
    if (!courier.location) return tariff.default_approach_mins;
    const km = (distanceMeters(courier.location, order.pickup) * tariff.detour_factor) / 1000;
    return Math.ceil((km / speed) * 60);
  }

  /** Not scheduled, or its dispatch window has opened (the pickup window less the approach time). */
  function isDue(order: Order): boolean {
    return !order.dispatchAfter || Date.parse(order.dispatchAfter) <= clock.now().getTime();
  }

  /** Reported a position recently enough to be trusted where it says it is (and still will be `forMs` from now). */
  function isLive(courier: Courier, forMs = 0): boolean {
    return courier.locationAt !== null && clock.now().getTime() - Date.parse(courier.locationAt) <= deps.staleAfterMs - forMs;
  }

  /** What the store says of an index entry: a live, active, available courier, or null (and the entry is evicted). */
  async function verifyCandidate(courierId: string, mode: Courier['mode'], vehicles: VehicleType[]): Promise<Courier | null> {
    const courier = await store.couriers.findById(courierId);
    if (courier && courier.status === 'available' && courier.accountStatus === 'active' && isLive(courier)) return courier;
    for (const vehicle of courier ? [courier.vehicle] : vehicles) await geoIndex.remove({ courierId, mode, vehicle });
    return null;
  }

  async function claimCourier(courierId: string, job: CourierJob): Promise<Courier | null> {
    return store.couriers.setStatus({ id: courierId, status: 'busy', from: ['available'], job, updatedAt: clock.now().toISOString() });
  }

  /**
   * When the courier would pick the order up if given it now: its approach at the travel model or
   * the order's ready time (creation + prep time; a scheduled order's window opening), whichever is later.
   */
  async function predictedPickupAt(order: Order, courier: Courier): Promise<Date> {
    const now = clock.now();
    // Test orders: the stored estimates are at the sandbox's pace, and so is the wait.
    const merchant = order.mode === 'test' ? await store.merchants.findById(order.merchantId) : null;
    const scale = timeScaleOf({ mode: order.mode, merchant, defaultSpeed: deps.sandboxSpeed });
    // The parcel is ready its prep time after creation (not after now: an order may wait in the queue).
    const readyInMins = Math.max(0, order.prepTimeMins - ((now.getTime() - Date.parse(order.createdAt)) / 60_000) * scale);
    const waitMins = Math.max(readyInMins, approachMinutes(courier, order));
    // A scheduled order is picked up at its window's opening, not before.
    return new Date(Math.max(now.getTime() + (waitMins * 60_000) / scale, order.scheduledPickupAt ? Date.parse(order.scheduledPickupAt) : 0));
  }

  /**
   * Whether the courier may be given this order (issue #37): an active account, and a pickup it
   * can make before its planned end (a courier near the end finishes what it carries, nothing new).
   */
  async function mayTake(courier: Courier, orders: readonly Order[]): Promise<boolean> {
    if (!isAccountActive(courier)) return false;
    if (courier.shiftEndsAt === null) return true;
    for (const order of orders) if (pickupAfterShiftEnd(courier, (await predictedPickupAt(order, courier)).getTime())) return false;
    return true;
  }

  /** Assigns a claimed courier to a `new` order (by dispatch, or an operator's choice); null when the order moved meanwhile. */
  async function assign(order: Order, courier: Courier, actor: Actor = { kind: 'system', id: null }): Promise<Order | null> {
    const travelMs = Date.parse(order.estimatedDeliveryAt) - Date.parse(order.estimatedPickupAt);
    const pickupAt = await predictedPickupAt(order, courier);
    return transitions.tryTransition({
      order,
      to: 'assigned',
      actor,
      patch: {
        courierId: courier.id,
        estimatedPickupAt: pickupAt.toISOString(),
        estimatedDeliveryAt: new Date(pickupAt.getTime() + travelMs).toISOString(),
      },
    });
  }

  /** Tries the nearest couriers for a `new` order; returns the order as it now stands. */
  async function dispatchOrder(options: { order: Order }): Promise<Order> {
    const { order } = options;
    if (order.status !== 'new' || order.batchId || !isDue(order) || heldForRound(order)) return order;
    const vehicles = carriers(order.vehicleType);
    const candidates = await geoIndex.nearest({ mode: order.mode, vehicles, point: order.pickup, limit: CANDIDATES });
    for (const candidate of candidates) {
      const found = await verifyCandidate(candidate.courierId, order.mode, vehicles);
      if (!found || !(await mayTake(found, [order]))) continue;
      const courier = await claimCourier(candidate.courierId, { kind: 'order', id: order.id });
      if (!courier) continue;
      await geoIndex.remove({ courierId: courier.id, mode: courier.mode, vehicle: courier.vehicle });
      const assigned = await assignOrRelease(order, courier);
      if (assigned) return assigned;
      await releaseCourier({ courierId: courier.id, jobId: order.id });
      return (await store.orders.findById(order.id)) ?? order;
    }
    return order;
  }

  /**
   * The assignment after a claim. When it throws (store unavailable), the claim is undone at once
   * if the store lets us; if this node dies in between, the reconciler frees the courier.
   */
  async function assignOrRelease(order: Order, courier: Courier, actor?: Actor): Promise<Order | null> {
    try {
      return await assign(order, courier, actor);
    } catch (error) {
      await store.couriers
        .setStatus({ id: courier.id, status: 'available', from: ['busy'], fromJobId: order.id, job: null, updatedAt: clock.now().toISOString() })
        .catch(() => null);
      throw error;
    }
  }

  /**
   * A courier whose job ended (or was cancelled) becomes available again and takes queued work (or
   * goes off duty, past its planned end). A disabled courier (finishing an order it kept) is never
   * made available: the store refuses, and it goes off duty instead.
   */
  async function releaseCourier(options: { courierId: string; jobId: string }): Promise<void> {
    const freed = (status: 'available' | 'off_duty') => ({ id: options.courierId, status, from: ['busy' as const], fromJobId: options.jobId, job: null, updatedAt: clock.now().toISOString() });
    const courier = await store.couriers.setStatus(freed('available'));
    if (courier) await offerWork({ courier });
    // Refused: the job moved on (then this fails too), or the account is disabled.
    else await store.couriers.setStatus(Object.assign(freed('off_duty'), { shiftEndsAt: null }));
  }

  /**
   * Gives an available courier the oldest queued work it can carry: a pending batch for its vehicle
   * first, else the oldest queued order. Without work, it goes (back) into the geo index.
   * `skipOrderId`: an order the courier just dropped, which must not come straight back to it.
   */
  async function offerWork(options: { courier: Courier; skipOrderId?: string }): Promise<void> {
    const { courier } = options;
    // A disabled courier gets nothing (nor an index entry); past its planned end, it goes off duty.
    if (!isAccountActive(courier)) return;
    if (isShiftOver(courier, clock.now())) return void (await endShift({ store, geoIndex }, courier, clock.now().toISOString()));
    const batches = await store.batches.listPending({ mode: courier.mode, vehicleTypes: [courier.vehicle], limit: 5 });
    for (const batch of batches) {
      if (await dispatchBatchTo(batch, courier)) return;
    }
    // Orders the periodic round commits are not handed out here (a few more are read past them).
    const queued = (await store.orders.listQueued({ mode: courier.mode, vehicleTypes: carriable(courier.vehicle), limit: 20, dueBy: clock.now().toISOString() }))
      .filter((o) => o.id !== options.skipOrderId && !heldForRound(o))
      .slice(0, 5);
    for (const order of queued) {
      if (!(await mayTake(courier, [order]))) continue;
      const claimed = await claimCourier(courier.id, { kind: 'order', id: order.id });
      if (!claimed) return; // someone else took this courier meanwhile
      if (await assignOrRelease(order, claimed)) return;
      await store.couriers.setStatus({ id: courier.id, status: 'available', from: ['busy'], fromJobId: order.id, job: null, updatedAt: clock.now().toISOString() });
    }
    if (courier.location && isLive(courier)) await geoIndex.upsert({ courierId: courier.id, mode: courier.mode, vehicle: courier.vehicle, location: courier.location });
  }

  /**
   * The round's commitment: claims this courier (still available, active and live) for the order
   * and assigns it; null when either moved meanwhile (the courier is then left as it was).
   */
  async function commitOrder(options: { order: Order; courierId: string }): Promise<Order | null> {
    const { order } = options;
    if (order.status !== 'new' || order.batchId) return null;
    const courier = await verifyCandidate(options.courierId, order.mode, carriers(order.vehicleType));
    if (!courier || !(await mayTake(courier, [order]))) return null;
    const claimed = await claimCourier(courier.id, { kind: 'order', id: order.id });
    if (!claimed) return null;
    await geoIndex.remove({ courierId: claimed.id, mode: claimed.mode, vehicle: claimed.vehicle });
    const assigned = await assignOrRelease(order, claimed);
    if (!assigned) await releaseCourier({ courierId: claimed.id, jobId: order.id });
    return assigned;
  }

  /** Claims the courier for the whole batch and assigns each of its orders; false when the courier was taken. */
  async function dispatchBatchTo(batch: Batch, courier: Courier): Promise<boolean> {
    // Every pickup of the batch before the planned end (each from where the courier is now).
    const orders = courier.shiftEndsAt === null ? [] : (await Promise.all(batch.orderIds.map((id) => store.orders.findById(id)))).filter((o): o is Order => o !== null);
    if (!(await mayTake(courier, orders))) return false;
    const claimed = await claimCourier(courier.id, { kind: 'batch', id: batch.id });
    if (!claimed) return false;
    const taken = await store.batches.update({ id: batch.id, from: ['pending'], patch: { status: 'assigned', courierId: courier.id }, updatedAt: clock.now().toISOString() });
    if (!taken) {
      await store.couriers.setStatus({ id: courier.id, status: 'available', from: ['busy'], fromJobId: batch.id, job: null, updatedAt: clock.now().toISOString() });
      return false;
    }
    await geoIndex.remove({ courierId: courier.id, mode: courier.mode, vehicle: courier.vehicle });
    for (const orderId of batch.orderIds) {
      const order = await store.orders.findById(orderId);
      if (order) await assign(order, claimed);
    }
    return true;
  }

  /** Dispatches a pending batch to the nearest available courier with exactly its vehicle. */
  async function dispatchBatch(options: { batch: Batch; near: { lat: number; lng: number } }): Promise<Batch> {
    const vehicles = [options.batch.vehicleType];
    const candidates = await geoIndex.nearest({ mode: options.batch.mode, vehicles, point: options.near, limit: CANDIDATES });
    for (const candidate of candidates) {
      const courier = await verifyCandidate(candidate.courierId, options.batch.mode, vehicles);
      if (courier && (await dispatchBatchTo(options.batch, courier))) break;
    }
    return (await store.batches.findById(options.batch.id)) ?? options.batch;
  }

  /** Puts every live available courier into the geo index (after a restart). */
  async function restoreCourierIndex(): Promise<number> {
    let restored = 0;
    for (const mode of ['live', 'test'] as const) {
      for (const courier of await store.couriers.listByMode(mode)) {
        if (courier.status !== 'available' || !courier.location || !isLive(courier)) continue;
        await geoIndex.upsert({ courierId: courier.id, mode, vehicle: courier.vehicle, location: courier.location });
        restored++;
      }
    }
    return restored;
  }

  return {
    restoreCourierIndex, dispatchOrder, releaseCourier, offerWork, dispatchBatch, carriable, carriers, isLive, isDue, mayTake, assign: assignOrRelease,
    commitOrder, dispatchBatchTo, approachMinutes, heldForRound,
  };
}
