import { setImmediate } from 'node:timers/promises';
import type { Clock } from '../ports/clock.js';
import type { CourierGeoIndex } from '../ports/geo-index.js';
import type { QueuePosition, Store } from '../ports/store.js';
import type { BatchService } from './batches.js';
import type { DispatchService } from './dispatch.js';
import { isOrderActive } from './orders/state-machine.js';
import { endShift, isShiftOver } from './shifts.js';
import { MODES, type Courier, type Mode, type VehicleType } from './types.js';

export const RECONCILER_LEASE = 'dispatch-reconciler';
/**
 * Per mode and round: pending batches re-offered (oldest first), new orders looked at in the queue
 * and orders in batches checked. The queue and the orders in batches are walked across rounds from
 * where the last round stopped (back to the oldest at the end), so a queue of any length is all
 * visited in time, and no round reads more than this many of them.
 */
const REOFFER_LIMIT = 100;
/** Orders handled between two turns of the event loop (a dispatch may answer without any I/O). */
const ORDERS_PER_TURN = 16;

export interface ReconcileReport {
  /** Couriers freed: busy, but their job has no active order of theirs. */
  freed: number;
  /** Index entries removed: couriers not available, not active, or silent past the liveness window. */
  evicted: number;
  /** Orders of a batch given to the batch's courier, or taken out of a batch that cannot carry them. */
  repaired: number;
  /** Queued orders and pending batches dispatched by this round. */
  dispatched: number;
  /** Available couriers sent off duty: their planned end passed. */
  shiftsEnded: number;
}

export type DispatchReconciler = ReturnType<typeof createDispatchReconciler>;

/**
 * Repairs what dispatch can leave behind when a node dies or the store fails between two writes
 * (claim and assignment are separate compare-and-sets), and what the geo index misses (a Redis
 * blip drops updates). One node at a time runs it, under a lease in the store. Anything younger
 * than `graceMs` is left alone: it may be a dispatch still in flight on another node.
 */
export function createDispatchReconciler(deps: {
  store: Store;
  geoIndex: CourierGeoIndex;
  dispatch: DispatchService;
  /** Queued orders go through it: a batched-rate order whose window closed takes its companions along. */
  batches: Pick<BatchService, 'dispatchQueued'>;
  clock: Clock;
  graceMs: number;
  vehicles: VehicleType[];
}) {
  const { store, geoIndex, dispatch, clock } = deps;
  const settled = (updatedAt: string) => clock.now().getTime() - Date.parse(updatedAt) > deps.graceMs;
  /** Where the walks of the queue and of the orders in batches go on from, per mode (null: the oldest). */
  const queueFrom = new Map<Mode, QueuePosition | null>();
  const batchedFrom = new Map<Mode, QueuePosition | null>();
  let handled = 0;
  /** Lets I/O run every few orders: SQLite answers synchronously, and so may a dispatch that finds no courier. */
  const pace = async () => {
    if (++handled % ORDERS_PER_TURN === 0) await setImmediate();
  };

  /** Whether the courier's job still has an active order of theirs (or an order about to be given to them). */
  async function hasActiveJob(courier: Courier): Promise<boolean> {
    const job = courier.job;
    if (!job) return false;
    if (job.kind === 'order') {
      const order = await store.orders.findById(job.id);
      return !!order && order.courierId === courier.id && isOrderActive(order);
    }
    const batch = await store.batches.findById(job.id);
    if (!batch || batch.courierId !== courier.id || batch.status !== 'assigned') return false;
    const orders = await Promise.all(batch.orderIds.map((id) => store.orders.findById(id)));
    return orders.some((o) => !!o && isOrderActive(o) && (o.courierId === courier.id || (o.status === 'new' && o.batchId === batch.id)));
  }

  /** Index verification against the store, liveness, and couriers stuck busy. */
  async function reconcileCouriers(mode: Mode, report: ReconcileReport): Promise<void> {
    let seen = 0;
    for (const courier of await store.couriers.listByMode(mode)) {
      // SQLite answers synchronously: let I/O run now and then, or a large fleet is one long stall.
      if (++seen % 64 === 0) await setImmediate();
      // Past its planned end with nothing in hand: off duty (issue #37); busy, it finishes first.
      if (courier.status === 'available' && isShiftOver(courier, clock.now())) {
        if (await endShift({ store, geoIndex }, courier, clock.now().toISOString())) report.shiftsEnded++;
        continue;
      }
      const dispatchable = courier.status === 'available' && courier.accountStatus === 'active' && dispatch.isLive(courier) && courier.location;
      if (dispatchable) {
        await geoIndex.upsert({ courierId: courier.id, mode, vehicle: courier.vehicle, location: courier.location! });
      } else {
        await geoIndex.remove({ courierId: courier.id, mode, vehicle: courier.vehicle });
        if (courier.status === 'available') report.evicted++;
      }
      if (courier.status === 'busy' && courier.job && settled(courier.updatedAt) && !(await hasActiveJob(courier))) {
        // A live courier takes queued work at once; a silent one is only freed (not dispatchable until it reports).
        if (dispatch.isLive(courier)) await dispatch.releaseCourier({ courierId: courier.id, jobId: courier.job.id });
        else await store.couriers.setStatus({ id: courier.id, status: 'available', from: ['busy'], fromJobId: courier.job.id, job: null, updatedAt: clock.now().toISOString() });
        report.freed++;
      }
    }
  }

  /** Orders still `new` in a batch: given to the batch's courier, or back to the queue when the batch cannot carry them. */
  async function repairBatches(mode: Mode, report: ReconcileReport): Promise<void> {
    const after = batchedFrom.get(mode);
    const orders = await store.orders.listNewInBatches({ mode, limit: REOFFER_LIMIT, ...(after && { after }) });
    const last = orders.at(-1);
    batchedFrom.set(mode, orders.length < REOFFER_LIMIT || !last ? null : { createdAt: last.createdAt, id: last.id });
    for (const order of orders) {
      await pace();
      if (!settled(order.updatedAt)) continue;
      const batch = await store.batches.findById(order.batchId!);
      if (batch?.status === 'pending' && batch.orderIds.includes(order.id)) continue; // offered with its batch below
      const courier = batch?.status === 'assigned' && batch.courierId ? await store.couriers.findById(batch.courierId) : null;
      const carrying = courier?.status === 'busy' && courier.job?.kind === 'batch' && courier.job.id === batch!.id && batch!.orderIds.includes(order.id);
      if (carrying && (await dispatch.assign(order, courier))) {
        report.repaired++;
        continue;
      }
      const detached = await store.orders.apply({ id: order.id, from: ['new'], patch: { batchId: null } });
      if (!detached) continue;
      report.repaired++;
      if ((await dispatch.dispatchOrder({ order: detached })).status !== 'new') report.dispatched++;
    }
  }

  /**
   * Pending batches and queued orders are offered again (couriers may have appeared without anything
   * waking dispatch); scheduled orders are among them once their window opens.
   */
  async function reoffer(mode: Mode, report: ReconcileReport): Promise<void> {
    for (const batch of await store.batches.listPending({ mode, vehicleTypes: deps.vehicles, limit: REOFFER_LIMIT })) {
      await pace();
      if (!settled(batch.updatedAt)) continue;
      const first = await store.orders.findById(batch.orderIds[0] ?? '');
      if (!first) continue;
      if ((await dispatch.dispatchBatch({ batch, near: first.pickup })).status !== 'pending') report.dispatched++;
    }
    const step = await store.orders.scanQueued({ mode, vehicleTypes: deps.vehicles, dueBy: clock.now().toISOString(), after: queueFrom.get(mode) ?? null, examine: REOFFER_LIMIT });
    queueFrom.set(mode, step.next);
    for (const order of step.orders) {
      await pace();
      if ((await deps.batches.dispatchQueued({ order })).status !== 'new') report.dispatched++;
    }
  }

  /** One full round over both modes. */
  async function reconcile(): Promise<ReconcileReport> {
    const report: ReconcileReport = { freed: 0, evicted: 0, repaired: 0, dispatched: 0, shiftsEnded: 0 };
    for (const mode of MODES) {
      await repairBatches(mode, report);
      await reconcileCouriers(mode, report);
      await reoffer(mode, report);
    }
    return report;
  }

  /** Runs a round when this node holds (or takes) the lease; null when another node holds it. */
  async function reconcileIfLeader(options: { owner: string; leaseMs: number }): Promise<ReconcileReport | null> {
    if (!(await store.leases.acquire({ name: RECONCILER_LEASE, owner: options.owner, ttlMs: options.leaseMs }))) return null;
    return reconcile();
  }

  async function stepDown(options: { owner: string }): Promise<void> {
    await store.leases.release({ name: RECONCILER_LEASE, owner: options.owner });
  }

  return { reconcile, reconcileIfLeader, stepDown };
}
