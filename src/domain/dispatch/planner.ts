import type { Clock } from '../../ports/clock.js';
import type { Store } from '../../ports/store.js';
import type { DispatchService } from '../dispatch.js';
import type { Courier, Order, VehicleType } from '../types.js';
import { FORBIDDEN_COST } from './assignment.js';
import { createYielder, matchNearest } from './candidates.js';
import { isHeldForRound, readyAtOf, type DispatchPolicy } from './policy.js';

export const PLANNER_LEASE = 'dispatch-planner';
/** Orders one round looks at (the most urgent first); the rest wait for the next round. */
export const MAX_ROUND_ORDERS = 2_000;
/** The round holds the event loop at most about this long at a time. */
const SLICE_MS = 10;

/** What a round did. */
export interface RoundReport {
  /** Orders ready within the horizon, and available couriers, that the round matched. */
  orders: number;
  couriers: number;
  /** Orders given to a courier (each order of a bundle counts). */
  committed: number;
  /** Bundles committed (batches of one merchant's orders). */
  bundles: number;
}

/** One job of the round: an order, or a bundle of one merchant's orders going as one batch. */
export interface RoundJob { orders: Order[]; readyAt: number }

/** Weights of the round's cost, in minutes: the parcel waiting, the courier waiting, and the approach. */
const W_PARCEL_WAIT = 1;
const W_COURIER_IDLE = 0.2;
const W_APPROACH = 0.3;
/** Already-late orders first: each minute past the ready time makes the order this much more attractive. */
const W_OVERDUE = 2;

export type DispatchPlanner = ReturnType<typeof createDispatchPlanner>;

/**
 * The periodic dispatch round (issue #37): one minimum-cost assignment of the available couriers to
 * the orders ready within the horizon, committing only the pairs that cannot wait for the next
 * round (the courier must leave now to be at the pickup by the ready time less the slack); then
 * a second assignment of the couriers left over to the orders that are due now. The cost of a pair
 * is the parcel's wait at the pickup (its lateness), the courier's idle wait before the ready time
 * and a little of the approach; already-late orders weigh less the later they are. A courier is
 * never given a pickup it cannot finish before its shift ends. Only each job's `policy.candidates`
 * nearest couriers (and each courier's nearest jobs) are priced (dispatch/candidates.ts), and the
 * round yields to the event loop between slices: 2,000 × 2,000 costs tens of milliseconds of CPU.
 */
export function createDispatchPlanner(deps: {
  store: Store;
  dispatch: Pick<DispatchService, 'approachMinutes' | 'commitOrder' | 'isLive' | 'carriable'>;
  clock: Clock;
  policy: DispatchPolicy;
  vehicles: VehicleType[];
  /** Commits a bundle to a courier (a batch of its orders); absent: no bundling. */
  commitBundle?: (options: { orders: Order[]; courierId: string }) => Promise<boolean>;
  /** Groups the round's orders into jobs (dynamic bundling); default: one job per order. */
  formJobs?: (options: { orders: Order[]; now: number }) => Promise<RoundJob[]>;
}) {
  const { store, dispatch, clock, policy } = deps;

  function available(courier: Courier): boolean {
    return courier.status === 'available' && courier.accountStatus === 'active' && courier.location !== null && dispatch.isLive(courier);
  }

  /**
   * A courier of the round: an available one where it stands now, or a busy one where and when its
   * job should end (its last drop-off, at the job's estimated delivery). A busy courier is never
   * committed; matched to an order, it keeps a farther free courier from being sent in its place.
   */
  interface Candidate { courier: Courier; freeAt: number; busy: boolean }

  /** Minutes from now to the courier's arrival at the job's pickup. */
  function travelMins(candidate: Candidate, job: RoundJob, now: number): number {
    return Math.max(0, (candidate.freeAt - now) / 60_000) + dispatch.approachMinutes(candidate.courier, job.orders[0]!);
  }

  /** Busy couriers whose job ends within the horizon, placed at their job's last drop-off. */
  async function finishing(couriers: Courier[], now: number): Promise<Candidate[]> {
    const out: Candidate[] = [];
    for (const courier of couriers) {
      if (courier.status !== 'busy' || !courier.job || courier.accountStatus !== 'active' || !dispatch.isLive(courier)) continue;
      const ids = courier.job.kind === 'order' ? [courier.job.id] : ((await store.batches.findById(courier.job.id))?.orderIds ?? []);
      const orders = (await Promise.all(ids.map((id) => store.orders.findById(id)))).filter((o): o is Order => !!o && o.courierId === courier.id);
      const last = orders.sort((a, b) => Date.parse(a.estimatedDeliveryAt) - Date.parse(b.estimatedDeliveryAt)).at(-1);
      if (!last) continue;
      // The estimate counts travel only: the counter at the pickup and the door at the drop-off come on top.
      const freeAt = Math.max(now, Date.parse(last.estimatedDeliveryAt) + 4 * policy.handoverMs);
      if (freeAt - now > policy.horizonMs) continue;
      out.push({ courier: Object.assign({}, courier, { location: { lat: last.dropoff.lat, lng: last.dropoff.lng } }), freeAt, busy: true });
    }
    return out;
  }

  /** Whether the pair cannot wait for the next round: its latest departure (ready − approach − slack) is before it. */
  function mustLeave(job: RoundJob, travel: number, now: number): boolean {
    return job.readyAt - travel * 60_000 - policy.commitSlackMs < now + policy.roundMs;
  }

  /** The pair's cost, or FORBIDDEN_COST when the courier cannot carry it or would pick up after its shift ends. */
  function pairCost(candidate: Candidate, job: RoundJob, now: number, dueOnly: boolean): number {
    const { courier } = candidate;
    if (dueOnly && candidate.busy) return FORBIDDEN_COST;
    if (job.orders.some((o) => !deps.dispatch.carriable(courier.vehicle).includes(o.vehicleType))) return FORBIDDEN_COST;
    const travel = travelMins(candidate, job, now);
    const arrive = now + travel * 60_000;
    if (courier.shiftEndsAt && Math.max(arrive + policy.handoverMs, job.readyAt) > Date.parse(courier.shiftEndsAt)) return FORBIDDEN_COST;
    if (dueOnly && !mustLeave(job, travel, now)) return FORBIDDEN_COST;
    const readyIn = (job.readyAt - now) / 60_000;
    const parcelWait = Math.max(0, travel - readyIn);
    const idle = Math.max(0, readyIn - travel);
    const overdue = Math.max(0, -readyIn);
    return (W_PARCEL_WAIT * parcelWait + W_COURIER_IDLE * idle + W_APPROACH * travel - W_OVERDUE * overdue) * job.orders.length;
  }

  async function commit(job: RoundJob, courier: Courier, report: RoundReport): Promise<boolean> {
    if (job.orders.length === 1) {
      const done = await dispatch.commitOrder({ order: job.orders[0]!, courierId: courier.id });
      if (done) report.committed++;
      return !!done;
    }
    if (!deps.commitBundle || !(await deps.commitBundle({ orders: job.orders, courierId: courier.id }))) return false;
    report.committed += job.orders.length;
    report.bundles++;
    return true;
  }

  async function planRound(): Promise<RoundReport> {
    const now = clock.now().getTime();
    const report: RoundReport = { orders: 0, couriers: 0, committed: 0, bundles: 0 };
    const queued = await store.orders.listQueued({ mode: 'live', vehicleTypes: deps.vehicles, limit: MAX_ROUND_ORDERS, dueBy: new Date(now).toISOString() });
    const orders = queued.filter((o) => isHeldForRound(policy, o) && readyAtOf(o) - now <= policy.horizonMs);
    if (orders.length === 0) return report;
    const fleet = await store.couriers.listByMode('live');
    const free = fleet.filter(available).map((courier) => ({ courier, freeAt: now, busy: false }));
    if (free.length === 0) return report;
    // The store's calls may all answer synchronously (SQLite): the round yields between its slices itself.
    const yielder = createYielder(SLICE_MS);
    await yielder();
    let couriers: Candidate[] = [...free, ...(policy.lookAhead ? await finishing(fleet, now) : [])];
    let jobs = deps.formJobs ? await deps.formJobs({ orders, now }) : orders.map((o) => ({ orders: [o], readyAt: readyAtOf(o) }));
    await yielder();
    report.orders = orders.length;
    report.couriers = free.length;
    // Pass 1: everyone in the horizon; pass 2: the couriers left over, on what must go now.
    for (const dueOnly of [false, true]) {
      if (couriers.length === 0 || jobs.length === 0) break;
      const pass = couriers;
      const match = await matchNearest({
        couriers: pass.map((c) => c.courier.location!), jobs: jobs.map((j) => j.orders[0]!.pickup), k: policy.candidates, sliceMs: SLICE_MS,
        cost: (c, j) => pairCost(pass[c]!, jobs[j]!, now, dueOnly),
      });
      const taken = new Set<number>();
      const busy = new Set<number>();
      for (const [row, col] of match.entries()) {
        if (col < 0) continue;
        await yielder();
        const candidate = couriers[row]!;
        const job = jobs[col]!;
        // Matched to a courier still on a job: the order waits for it (no one else is sent now).
        if (candidate.busy) {
          taken.add(col);
          continue;
        }
        if (!mustLeave(job, travelMins(candidate, job, now), now)) continue;
        if (await commit(job, candidate.courier, report)) {
          taken.add(col);
          busy.add(row);
        }
      }
      couriers = couriers.filter((c, i) => !busy.has(i) && !c.busy);
      jobs = jobs.filter((_, i) => !taken.has(i));
    }
    return report;
  }

  /** Runs a round when this node holds (or takes) the planner's lease; null when another node holds it. */
  async function planRoundIfLeader(options: { owner: string; leaseMs: number }): Promise<RoundReport | null> {
    if (!(await store.leases.acquire({ name: PLANNER_LEASE, owner: options.owner, ttlMs: options.leaseMs }))) return null;
    return planRound();
  }

  async function stepDown(options: { owner: string }): Promise<void> {
    await store.leases.release({ name: PLANNER_LEASE, owner: options.owner });
  }

  return { planRound, planRoundIfLeader, stepDown };
}
