import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../../src/config.js';
import { buildContainer, type Container } from '../../../src/container.js';
import type { MerchantPrincipal } from '../../../src/domain/auth.js';
import { confirmDeliveryCommandSchema } from '../../../src/domain/orders/schemas.js';
import type { Tariff } from '../../../src/domain/tariffs.js';
import type { Courier, LatLng, Order } from '../../../src/domain/types.js';
import { locationsOf, travelMinutes, type MdrpCourier, type MdrpInstance, type MdrpOrder } from './instance.js';
import { summarize, type Solution, type SolutionAssignment, type SolutionOrder, type SolutionSummary } from './solution.js';

/** The plane's origin is laid on Santiago: metres east and north of this point (lengths kept, as the haversine sees them). */
export const SANTIAGO_CENTRE: LatLng = { lat: -33.45, lng: -70.65 };
const METRES_PER_DEGREE = (6_371_008.8 * Math.PI) / 180;
/** Minute 0 of the instance's day. */
export const DAY_START = Date.parse('2026-03-02T12:00:00.000Z');

export interface ReplayOptions {
  instance: MdrpInstance;
  /** Extra environment for the service's configuration (dispatch settings). */
  env?: Record<string, string>;
  /** Stop placing orders after this many (a fast slice for tests); all by default. */
  orderLimit?: number;
  /** Keep the store's directory (default: removed at the end). */
  dataDir?: string;
}

export interface ReplayResult {
  solution: Solution;
  summary: SolutionSummary;
  /** Couriers taken off work they had been handed (their shift ended before they reached the pickup). */
  withdrawals: number;
  /** Wall time of the replay, ms. */
  wallMs: number;
}

/**
 * Replays an MDRP instance through the service's own domain services (the container production
 * builds, on an embedded store in a temporary directory), under a virtual clock that moves minute by
 * minute: couriers report their start position and go on duty at their shift's start; orders are
 * created by their restaurant (one merchant each) at their placement time with prep time = ready −
 * placement; whatever job dispatch hands a courier, the courier drives it at the instance's speed
 * (straight lines, whole minutes rounded up), reports its position at each stop (the service's
 * arrival rule), picks up when the food is ready and delivers; at the shift's end a courier goes off
 * duty once its work is done, and a courier still on its way to a pickup is withdrawn (the
 * operators' tool). The dispatch reconciler and any periodic dispatch round run every minute.
 */
export async function replayInstance(options: ReplayOptions): Promise<ReplayResult> {
  const started = performance.now();
  const { instance } = options;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'mdrp-'));
  let minute = -60;
  const clock = { now: () => new Date(DAY_START + minute * 60_000) };
  const config = loadConfig({
    DATA_DIR: dataDir, SEED_DEMO: 'false', SANDBOX_SIMULATOR: 'false', LOG_LEVEL: 'silent', POSITION_FLUSH_MS: '0',
    // Idle couriers report nothing in the replay: where they stand is known (they stay where they stopped).
    COURIER_STALE_AFTER_MS: '86400000', DISPATCH_POLICY: 'planned', DISPATCH_RECONCILE_MS: '60000', DISPATCH_ROUND_MS: '60000',
    // A courier picks up half a service after arriving.
    DISPATCH_HANDOVER_S: String((instance.pickupServiceMins / 2) * 60),
    ...options.env,
  });
  const container = await buildContainer(Object.assign(config, { tariff: instanceTariff(config.tariff, instance) }), { logger: pino({ level: 'silent' }), clock });
  try {
    return await run(container, options, () => minute, (m) => (minute = m), started);
  } finally {
    await container.close();
    if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The service's travel model at the instance's speed, in straight lines: every vehicle moves at `meters_per_minute`. */
function instanceTariff(tariff: Tariff, instance: MdrpInstance): Tariff {
  const kmh = (instance.metersPerMinute * 60) / 1000;
  return Object.assign({}, tariff, { detour_factor: 1, vehicles: tariff.vehicles.map((v) => Object.assign({}, v, { speed_kmh: kmh })) });
}

export function planeToLatLng(instance: MdrpInstance): (p: { x: number; y: number }) => LatLng {
  const xs = [...instance.restaurants.values(), ...instance.orders].map((p) => p.x);
  const ys = [...instance.restaurants.values(), ...instance.orders].map((p) => p.y);
  const cx = (Math.min(...xs) + Math.max(...xs)) / 2;
  const cy = (Math.min(...ys) + Math.max(...ys)) / 2;
  const cos = Math.cos((SANTIAGO_CENTRE.lat * Math.PI) / 180);
  const round = (v: number) => Math.round(v * 1e7) / 1e7;
  return (p) => ({ lat: round(SANTIAGO_CENTRE.lat + (p.y - cy) / METRES_PER_DEGREE), lng: round(SANTIAGO_CENTRE.lng + (p.x - cx) / (METRES_PER_DEGREE * cos)) });
}

/** A step of one courier's drive; skipped once the courier no longer drives that job (withdrawn). */
interface Step { at: number; seq: number; sim: SimCourier; jobKey: string; run: () => Promise<void> }

interface SimCourier {
  mdrp: MdrpCourier;
  id: string;
  /** Where it stands (or last arrived): an instance place id. */
  place: string;
  /** When it is free to leave `place`. */
  freeAt: number;
  /** The service job it is driving (null: none). */
  jobKey: string | null;
  /** Whether it has reached the pickup of its current job (from then on it finishes the job). */
  atPickup: boolean;
  jobOrders: string[];
  onDuty: boolean;
  done: boolean;
}

async function run(container: Container, options: ReplayOptions, now: () => number, setMinute: (m: number) => void, started: number): Promise<ReplayResult> {
  const { instance } = options;
  const { admin, auth, orders: orderService, couriers: courierService, reconciler, planner } = container.services;
  const { store } = container;
  const toLatLng = planeToLatLng(instance);
  const places = locationsOf(instance);
  const tt = (a: string, b: string) => travelMinutes(instance, places.get(a)!, places.get(b)!);
  const halfPickup = instance.pickupServiceMins / 2;
  const halfDrop = instance.dropoffServiceMins / 2;

  // Merchants: one per restaurant, so the service's per-merchant batches are the evaluator's per-restaurant bundles.
  const principals = new Map<string, MerchantPrincipal>();
  const usedRestaurants = new Set(instance.orders.map((o) => o.restaurant));
  for (const r of instance.restaurants.values()) {
    if (!usedRestaurants.has(r.id)) continue;
    const created = await admin.createMerchant({ input: { name: `Restaurant ${r.id}` } });
    principals.set(r.id, await auth.authenticateApiKey({ apiKey: created.liveKey }));
  }
  const sims: SimCourier[] = [];
  const simById = new Map<string, SimCourier>();
  for (const [i, c] of instance.couriers.entries()) {
    const { token } = await admin.createCourier({ input: { name: `Courier ${c.id}`, phone: '+56987654321', vehicle: 'bike', plate: `MD${String(i).padStart(4, '0')}`, mode: 'live' } });
    const { courier } = await auth.authenticateCourier({ token });
    const sim: SimCourier = { mdrp: c, id: courier.id, place: c.id, freeAt: c.on, jobKey: null, atPickup: false, jobOrders: [], onDuty: false, done: false };
    sims.push(sim);
    simById.set(courier.id, sim);
  }

  const placed = [...instance.orders].sort((a, b) => a.placement - b.placement || a.id.localeCompare(b.id, 'en', { numeric: true }));
  const toPlace = options.orderLimit === undefined ? placed : placed.slice(0, options.orderLimit);
  const mdrpByServiceId = new Map<string, MdrpOrder>();
  const serviceIdByMdrp = new Map<string, string>();
  const solved = new Map<string, SolutionOrder>();
  const assignments: SolutionAssignment[] = [];
  const moves: Solution['moves'] = [];
  let withdrawals = 0;
  const steps: Step[] = [];
  let seq = 0;
  const schedule = (at: number, sim: SimCourier, jobKey: string, runStep: () => Promise<void>) => steps.push({ at, seq: seq++, sim, jobKey, run: runStep });
  let drives = 0;
  const fresh = async (sim: SimCourier): Promise<Courier> => (await store.couriers.findById(sim.id))!;

  const lastOff = Math.max(...instance.couriers.map((c) => c.off));
  const firstMinute = Math.min(...instance.couriers.map((c) => c.on), ...toPlace.map((o) => o.placement));
  let nextOrder = 0;

  const moveTo = (sim: SimCourier, destination: string, departure: number): number => {
    if (sim.place === destination) return departure;
    moves.push({ courier: sim.mdrp.id, departure, origin: sim.place, destination });
    const arrival = departure + tt(sim.place, destination);
    sim.place = destination;
    return arrival;
  };

  /** The courier drives the job it was just handed: to the pickup, then each drop-off in the job's order. */
  async function driveJob(sim: SimCourier, courier: Courier, t: number): Promise<void> {
    const job = courier.job!;
    const jobKey = `${job.kind}:${job.id}:${++drives}`;
    const active = await courierService.activeOrders(courier);
    const sequence = job.kind === 'batch' ? ((await store.batches.findById(job.id))?.orderIds ?? []) : [job.id];
    const jobOrders = sequence.map((id) => active.find((o) => o.id === id)).filter((o): o is Order => !!o && o.status === 'assigned');
    if (jobOrders.length === 0) return;
    const mdrp = jobOrders.map((o) => mdrpByServiceId.get(o.id)!);
    const restaurant = mdrp[0]!.restaurant;
    sim.jobKey = jobKey;
    sim.atPickup = false;
    sim.jobOrders = jobOrders.map((o) => o.id);
    const departure = Math.max(t, sim.freeAt);
    const arrival = moveTo(sim, restaurant, departure);
    const pickup = Math.max(arrival + halfPickup, ...mdrp.map((o) => o.ready), departure + (arrival === departure ? halfPickup : 0));
    sim.freeAt = arrival;
    schedule(arrival, sim, jobKey, async () => {
      sim.atPickup = true;
      const c = await fresh(sim);
      await courierService.reportPosition({ courier: c, input: toLatLng(instance.restaurants.get(restaurant)!) });
      for (const id of sim.jobOrders) {
        const order = await store.orders.findById(id);
        if (order?.status === 'assigned') await courierService.advanceOrder({ courier: c, ref: id, input: { status: 'arrived_pickup' } });
      }
    });
    schedule(pickup, sim, jobKey, async () => {
      const c = await fresh(sim);
      for (const id of sim.jobOrders) await courierService.advanceOrder({ courier: c, ref: id, input: { status: 'picked_up' } });
      assignments.push({ assignmentTime: t, pickupTime: pickup, courier: sim.mdrp.id, orders: mdrp.map((o) => o.id) });
      // The trip from the pickup is now certain: its moves and stops are laid out.
      let leave = pickup + halfPickup;
      for (const [i, o] of mdrp.entries()) {
        const arrive = moveTo(sim, o.id, leave);
        const drop = arrive + halfDrop;
        leave = arrive + instance.dropoffServiceMins;
        const serviceId = jobOrders[i]!.id;
        solved.set(o.id, { order: o.id, pickupTime: pickup, dropoffTime: drop, courier: sim.mdrp.id });
        schedule(arrive, sim, jobKey, async () => {
          const cc = await fresh(sim);
          await courierService.reportPosition({ courier: cc, input: toLatLng(o) });
          const order = await store.orders.findById(serviceId);
          if (order?.status === 'picked_up') await courierService.advanceOrder({ courier: cc, ref: serviceId, input: { status: 'arrived_dropoff' } });
        });
        const last = i === mdrp.length - 1;
        // The courier confirms the delivery as it leaves the door (half a service after the drop-off the evaluator counts).
        schedule(leave, sim, jobKey, async () => {
          if (last) {
            sim.freeAt = leave;
            sim.jobKey = null;
            sim.jobOrders = [];
          }
          const cc = await fresh(sim);
          await courierService.confirmDelivery({ courier: cc, ref: serviceId, input: confirmDeliveryCommandSchema.parse({ driverId: cc.id, coords: toLatLng(o), photoUrl: 'https://proofs.example/photo.jpg', signatureUrl: 'https://proofs.example/signature.png' }) });
        });
      }
    });
  }

  /** Hands each idle courier's new job (if dispatch gave it one) to the simulation; withdraws one handed work after its shift. */
  async function observeJobs(t: number): Promise<void> {
    for (const sim of sims) {
      if (!sim.onDuty || sim.jobKey) continue;
      const courier = await fresh(sim);
      if (courier.status !== 'busy' || !courier.job) continue;
      if (t >= sim.mdrp.off) {
        await courierService.withdrawCourier({ courierId: sim.id, reason: 'shift ended' });
        withdrawals++;
        await goOffIfDone(sim, t);
        continue;
      }
      await driveJob(sim, courier, t);
    }
  }

  async function goOffIfDone(sim: SimCourier, t: number): Promise<void> {
    if (!sim.onDuty || sim.jobKey || t < sim.mdrp.off) return;
    const courier = await fresh(sim);
    if (courier.status === 'available') await courierService.setDuty({ courier, input: { onDuty: false } });
    if ((await fresh(sim)).status === 'off_duty') {
      sim.onDuty = false;
      sim.done = true;
    }
  }

  const horizon = Math.max(lastOff, ...toPlace.map((o) => o.ready)) + 240;
  for (let t = firstMinute; t <= horizon; t++) {
    setMinute(t);
    for (const sim of sims) {
      if (sim.mdrp.on !== t) continue;
      const courier = await fresh(sim);
      await courierService.reportPosition({ courier, input: toLatLng(sim.mdrp) });
      // The shift's planned end, as the courier app sends it going on duty (¿Hasta qué hora?).
      await courierService.setDuty({ courier: await fresh(sim), input: { onDuty: true, shiftEndsAt: new Date(DAY_START + sim.mdrp.off * 60_000).toISOString() } });
      sim.onDuty = true;
    }
    while (nextOrder < toPlace.length && toPlace[nextOrder]!.placement === t) {
      const o = toPlace[nextOrder++]!;
      const { order } = await orderService.createOrder({
        principal: principals.get(o.restaurant)!,
        input: {
          pickup: toLatLng(instance.restaurants.get(o.restaurant)!), dropoff: toLatLng(o), prepTimeMins: o.ready - o.placement,
          customerName: `Customer ${o.id}`, customerPhone: '+56912345678', paymentMode: 'prepaid', totalWeightKg: 1,
        },
      });
      mdrpByServiceId.set(order.id, o);
      serviceIdByMdrp.set(o.id, order.id);
    }
    await observeJobs(t);
    // Steps due now, in their order (a step may schedule more for this very minute).
    for (;;) {
      const due = steps.filter((s) => s.at <= t).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      steps.splice(steps.indexOf(due), 1);
      if (due.sim.jobKey !== due.jobKey) continue; // the job was withdrawn
      await due.run();
    }
    // Shift ends: a courier still on its way to a pickup is withdrawn; one at the pickup or carrying finishes.
    for (const sim of sims) {
      if (!sim.onDuty || t < sim.mdrp.off) continue;
      if (sim.jobKey && !sim.atPickup) {
        await courierService.withdrawCourier({ courierId: sim.id, reason: 'shift ended' });
        withdrawals++;
        sim.jobKey = null;
        sim.jobOrders = [];
      }
      await goOffIfDone(sim, t);
    }
    await reconciler.reconcile();
    await planner.planRound();
    await observeJobs(t);
    if (nextOrder >= toPlace.length && steps.length === 0 && [...solved.values()].filter((s) => s.dropoffTime !== null).length === toPlace.length) break;
    if (t > lastOff && steps.length === 0) break;
  }
  const solution: Solution = {
    assignments,
    orders: toPlace.map((o) => solved.get(o.id) ?? { order: o.id, pickupTime: null, dropoffTime: null, courier: null }),
    moves,
  };
  const sliced: MdrpInstance = Object.assign({}, instance, { orders: toPlace });
  return { solution, summary: summarize(sliced, solution), withdrawals, wallMs: performance.now() - started };
}
