import { destinationOf } from './orders/stops.js';
import { z } from 'zod';
import type { Clock } from '../ports/clock.js';
import { createSeededIdSource, type IdSource } from '../ports/ids.js';
import type { Store } from '../ports/store.js';
import type { MerchantPrincipal } from './auth.js';
import type { CourierService } from './couriers.js';
import { hashToken, type SecretBox } from './credentials.js';
import type { DispatchService } from './dispatch.js';
import { AppError } from './errors.js';
import { distanceMeters } from './geo.js';
import type { CourierGeoIndex } from '../ports/geo-index.js';
import { assertPermitted } from './members/roles.js';
import { merchantScope, type IdempotencyService, type IdempotentCall } from './idempotency.js';
import type { CreateOrderCommand } from './orders/schemas.js';
import type { OrderService } from './orders/service.js';
import { SANDBOX_EVIDENCE, sandboxDelivery } from './sandbox.js';
import { DEFAULT_FAILED_ATTEMPT_POLICY } from './orders/failed-attempts.js';
import { isOrderActive } from './orders/state-machine.js';
import { timeScaleOf } from './sandbox-time.js';
import { vehicleTariff, type Tariff } from './tariffs.js';
import type { Courier, LatLng, Order, OrderEvent, WebhookDelivery } from './types.js';
import { ORDER_NOTES } from './orders/notes.js';
import { RUN_COURIER_NAME, RUN_PLATE_PREFIX } from './sandbox-run-couriers.js';

/** What a run plays. `failed_attempt_then_return`: nobody answers at the door, the parcel goes back to the pickup (policy `return`). */
export const SANDBOX_SCENARIOS = ['delivered', 'delivered_with_pin', 'cancelled_after_assignment', 'courier_reassigned', 'late_with_eta_changes', 'failed_attempt_then_return'] as const;
export type SandboxScenario = (typeof SANDBOX_SCENARIOS)[number];

export const sandboxRunCommandSchema = z.strictObject({
  scenario: z.enum(SANDBOX_SCENARIOS),
  /** Any string (or integer, as text) up to 64 characters: with the rest of the request it fixes every id and number of the run. */
  seed: z.union([z.string().trim().min(1).max(64), z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).transform(String)]),
  /** When the run's virtual clock starts: any time in 2000–2099 (past or future: nothing waits for it). */
  startTime: z.iso.datetime({ offset: true }).refine((v) => Date.parse(v) >= Date.UTC(2000, 0, 1) && Date.parse(v) < Date.UTC(2100, 0, 1), 'must be in the years 2000 to 2099'),
});
/** A run creates its order (`order`) or plays the merchant's own existing test order (`orderId`, any id form the order routes accept). */
export type SandboxRunCommand = z.output<typeof sandboxRunCommandSchema> & ({ order: CreateOrderCommand; orderId?: never } | { orderId: string; order?: never });

/** A clock the run moves by hand. */
export interface VirtualClock extends Clock {
  advance(ms: number): void;
}
function virtualClock(start: number): VirtualClock {
  let now = start;
  return { now: () => new Date(now), advance: (ms) => void (now += ms) };
}

/** The services a run drives, built over the shared store with the run's clock and ids (the composition root makes them). */
export interface SandboxRuntime {
  orders: OrderService;
  couriers: CourierService;
  dispatch: DispatchService;
  geoIndex: CourierGeoIndex;
}

export interface SandboxRunResult {
  id: string;
  scenario: SandboxScenario;
  seed: string;
  startTime: string;
  endTime: string;
  order: Order;
  /** The order's history, in sequence order (GET /orders/{id}/events). */
  events: OrderEvent[];
  /** Courier positions reported, with their virtual times. */
  positions: Array<{ at: string; lat: number; lng: number }>;
  /** Every webhook delivery the run wrote, in the order written (their ids are time-ordered too). */
  deliveries: WebhookDelivery[];
}

/** Virtual seconds between two position reports. */
const TICK_S = 10;
/** How long the courier stays at each stop before the next step. */
const DWELL_MS = 60_000;
/** A run that has not ended after this many ticks is a bug: it stops rather than spin. */
const MAX_TICKS = 5_000;
/** Where a run's couriers start: this far north of the city centre's reference point, in degrees of latitude. */
const COURIER_START: LatLng = { lat: -33.4372, lng: -70.6506 };
/** The record that a run was played (its couriers are gone once it ends): the same request again is a CONFLICT. */
const PLAYED_OPERATION = 'sandbox.run.played';
/**
 * When a run's deliveries are due while it plays: never. The run releases them when it ends, so
 * the worker's writes to the deliveries never interleave with the run's own (jongodb, the MongoDB
 * test server, loses an insert made while another connection's transaction on the collection is open).
 */
export const RUN_DELIVERIES_HELD_UNTIL = '9999-12-31T23:59:59.999Z';

export type SandboxRunService = ReturnType<typeof createSandboxRunService>;

/** The operation of startRun's idempotency records. */
export const START_RUN = 'sandbox.run';

/**
 * Deterministic sandbox runs (issue #31 item 2): a whole delivery played at once on a virtual
 * clock, through the same domain services as a real order (so the same history, feed events and
 * webhook bodies), with the run's own couriers (plate `RUN-…`, never offered other work, never
 * shown to operators, removed when the run ends) and ids drawn from a stream keyed by the master key, the merchant and the
 * request: the same request gives the same ids, numbers, times and bodies. Webhook deliveries are
 * held while it plays and due when it ends (the worker sends them with the real time in
 * `webhook-timestamp`, which receivers check against their clock). An existing order (`orderId`)
 * plays too, when still new and undispatched.
 */
export function createSandboxRunService(deps: {
  store: Store;
  secretBox: SecretBox;
  tariff: Tariff;
  defaultSpeed: number;
  runtime: (options: { clock: Clock; ids: IdSource }) => SandboxRuntime;
  /** The merchant's order by any id form (404 ORDER_NOT_FOUND across modes and merchants). */
  getOrder: (options: { principal: MerchantPrincipal; ref: string }) => Promise<Order>;
  idempotency: IdempotencyService;
}) {
  const { store, secretBox, tariff, idempotency } = deps;

  async function startRun(options: { principal: MerchantPrincipal; input: SandboxRunCommand } & IdempotentCall): Promise<SandboxRunResult> {
    const { principal, input } = options;
    return idempotency.runCommand(options, { scope: merchantScope(principal, START_RUN), request: { input } }, () => playRun({ principal, input }));
  }

  async function playRun(options: { principal: MerchantPrincipal; input: SandboxRunCommand }): Promise<SandboxRunResult> {
    const { principal, input } = options;
    assertPermitted(principal, 'dispatch');
    if (principal.mode !== 'test') throw new AppError('FORBIDDEN', 'Sandbox runs are for test keys only (ak_test_…)');
    const start = Date.parse(input.startTime);
    const clock = virtualClock(start);
    // An existing order is looked up as the order routes do: a live or another merchant's order is 404.
    const existing = input.orderId !== undefined ? playable(await deps.getOrder({ principal, ref: input.orderId })) : null;
    // The history must not go back in time: an existing order's run starts after its creation.
    if (existing && start < Date.parse(existing.createdAt)) {
      throw new AppError('VALIDATION_ERROR', 'Invalid request: startTime', { fields: [{ field: 'startTime', message: `must not be before the order was created (${existing.createdAt})` }] });
    }
    const key = secretBox.derive(`sandbox-run:${JSON.stringify([principal.merchant.id, input.seed, input.scenario, new Date(start).toISOString(), existing ? { order_id: existing.id } : input.order])}`);
    const ids = createSeededIdSource({ key, clock });
    const runId = ids.next('run');
    const run = deps.runtime({ clock, ids });
    if (existing && input.scenario === 'delivered_with_pin' && !existing.deliveryPin) {
      throw new AppError('CONFLICT', `The order ${existing.id} has no delivery PIN: delivered_with_pin plays orders created with one`);
    }
    if (existing && input.scenario === 'failed_attempt_then_return' && (existing.failedAttemptPolicy ?? DEFAULT_FAILED_ATTEMPT_POLICY) !== 'return') {
      throw new AppError('CONFLICT', `The order ${existing.id} has failedAttemptPolicy ${existing.failedAttemptPolicy}: failed_attempt_then_return plays orders whose policy is return`);
    }
    const order: CreateOrderCommand | Order = existing ?? (
      input.scenario === 'delivered_with_pin' ? Object.assign({}, input.order!, { deliveryPin: true })
        : input.scenario === 'failed_attempt_then_return' ? Object.assign({}, input.order!, { failedAttemptPolicy: 'return' as const })
          : input.order!);

    const first = await newCourier(run, ids, clock, 1, principal.merchant.id);
    const made = [first.id];
    let orderId: string | undefined;
    let done = false;
    try {
      const result = await play({ principal, input, run, ids, clock, order, first, made, runId, start, onOrder: (id) => void (orderId = id) });
      await releaseDeliveries(principal, result.deliveries);
      done = true;
      // Due when the run ends, on the run's clock (the answer is byte-identical); the stored delivery is due at the real time, for the worker.
      return Object.assign(result, { deliveries: result.deliveries.map((d) => (d.status === 'pending' ? Object.assign({}, d, { nextAttemptAt: result.endTime }) : d)) });
    } finally {
      // The run's couriers go when it ends, whatever happened (nobody sees them, nothing dispatches to them); its held deliveries go out even when it failed.
      for (const id of made) await removeCourier(run, id);
      if (orderId && !done) await releaseDeliveries(principal, await deliveriesOf(principal, orderId, new Date(start).toISOString(), clock.now())).catch(() => null);
    }
  }

  async function play(options: {
    principal: MerchantPrincipal; input: SandboxRunCommand; run: SandboxRuntime; ids: IdSource; clock: VirtualClock; order: CreateOrderCommand | Order;
    first: Courier; made: string[]; runId: string; start: number; onOrder: (id: string) => void;
  }): Promise<SandboxRunResult> {
    const { principal, input, run, ids, clock, order, first, made, runId, start } = options;
    const created = 'id' in order ? await run.dispatch.dispatchOrder({ order }) : (await run.orders.createOrder({ principal, input: order })).order;
    options.onOrder(created.id);
    if (!created.courierId) {
      throw new AppError('CONFLICT', `The order ${created.id} was not dispatched at once (scheduled, held for batching, or just taken by another courier): a run plays orders dispatched when it starts`);
    }
    const positions: SandboxRunResult['positions'] = [];
    const speed = timeScaleOf({ mode: 'test', merchant: await store.merchants.findById(principal.merchant.id), defaultSpeed: deps.defaultSpeed });
    // Where each run courier is: kept here, since positions reach the store in batches (POSITION_FLUSH_MS) and a read may lag.
    const at = new Map<string, LatLng>();
    /** The courier as stored (status, job), where the run put it. */
    const courierNow = async (id: string): Promise<Courier> => Object.assign({}, (await store.couriers.findById(id))!, at.has(id) && { location: at.get(id)! });
    const drive = async (courier: Courier, options: { until: (o: Order) => boolean; pace?: number }) => {
      for (let tick = 0; tick < MAX_TICKS; tick++) {
        const current = (await store.orders.findById(created.id))!;
        if (options.until(current) || !isOrderActive(current)) return current;
        const self = await courierNow(courier.id);
        clock.advance(TICK_S * 1000);
        const step = await stepCourier(run, self, current, speed * (options.pace ?? 1));
        if (step) {
          at.set(courier.id, step);
          positions.push(Object.assign({ at: clock.now().toISOString() }, step));
        }
      }
      throw new AppError('INTERNAL_ERROR', 'The sandbox run did not end');
    };
    const dwell = () => clock.advance(DWELL_MS);

    switch (input.scenario) {
      case 'delivered':
      case 'delivered_with_pin':
        await drive(first, { until: () => false });
        break;
      case 'late_with_eta_changes':
        // Slowed to a crawl after the pickup: the live estimate grows as the courier reports.
        await drive(first, { until: (o) => o.status === 'picked_up' });
        await drive(first, { until: () => false, pace: 0.35 });
        break;
      case 'cancelled_after_assignment': {
        let ticks = 0;
        await drive(first, { until: () => ++ticks > 4 });
        dwell();
        await run.orders.cancelOrder({ principal, ref: created.id, input: { reason: ORDER_NOTES.sandboxCancelled } });
        break;
      }
      case 'failed_attempt_then_return': {
        const atDoor = await drive(first, { until: (o) => o.status === 'arrived_dropoff' });
        dwell();
        const coords = { lat: atDoor.dropoff.lat, lng: atDoor.dropoff.lng };
        await run.couriers.reportFailedAttempt({ courier: await courierNow(first.id), ref: created.id, input: { reason: 'recipient_absent', coords } });
        await drive(first, { until: () => false });
        break;
      }
      case 'courier_reassigned': {
        let ticks = 0;
        await drive(first, { until: () => ++ticks > 4 });
        const second = await newCourier(run, ids, clock, 2, null);
        made.push(second.id);
        dwell();
        await run.couriers.releaseOrder({ courier: await courierNow(first.id), ref: created.id, input: { reason: ORDER_NOTES.sandboxDroppedOut } });
        await drive(second, { until: () => false });
        break;
      }
    }
    const final = (await store.orders.findById(created.id))!;
    return {
      id: runId, scenario: input.scenario, seed: input.seed, startTime: new Date(start).toISOString(), endTime: clock.now().toISOString(), order: final,
      events: await store.orders.listEvents(created.id), positions, deliveries: await deliveriesOf(principal, final.id, new Date(start).toISOString(), clock.now()),
    };
  }

  /** An existing order a run may play: still `new`, with no courier, not scheduled and not held for batching. */
  function playable(order: Order): Order {
    if (order.status !== 'new' || order.courierId || order.batchId || order.batchWindow || order.dispatchAfter) {
      throw new AppError('CONFLICT', `The order ${order.id} is ${order.status}${order.courierId ? ', assigned' : ''}${order.batchId || order.batchWindow ? ', held for batching' : ''}${order.dispatchAfter ? ', scheduled' : ''}: a run plays an order that is new and not yet dispatched`);
    }
    return order;
  }

  /**
   * A courier of the run: simulated, nobody holds its token, only the run's dispatch knows it.
   * `merchantId` (the first courier): the same request again draws the same ids, so the first
   * courier's id marks the run as played, kept after the courier is gone: a run is played once.
   */
  async function newCourier(run: SandboxRuntime, ids: IdSource, clock: Clock, n: number, merchantId: string | null): Promise<Courier> {
    const at = clock.now().toISOString();
    const id = ids.next('cr');
    const played = new AppError('CONFLICT', 'This run (seed, scenario, start time and order) was already played for this merchant; use another seed');
    if (merchantId !== null) {
      const claim = await store.idempotentWrites.claim({
        ownerId: merchantId, mode: 'test', operation: PLAYED_OPERATION, key: id, fingerprint: id, token: id, outcome: null, createdAt: at,
        lockedUntil: RUN_DELIVERIES_HELD_UNTIL, expiresAt: RUN_DELIVERIES_HELD_UNTIL,
      }, at);
      if (!claim.claimed) throw played;
    }
    // A run of an older version kept its couriers: that one was played too.
    if (await store.couriers.findById(id)) throw played;
    const courier: Courier = {
      id, mode: 'test', name: `${RUN_COURIER_NAME}${n}`, phone: `+5690000${String(9000 + n)}`, vehicle: 'van',
      plate: `${RUN_PLATE_PREFIX}${String(n).padStart(3, '0')}`, tokenHash: hashToken(ids.next('tok')), accountStatus: 'active', status: 'available',
      location: { lat: COURIER_START.lat + (n - 1) * 0.004, lng: COURIER_START.lng }, locationAt: at, job: null, shiftEndsAt: null, createdAt: at, updatedAt: at,
    };
    await store.couriers.insert(courier);
    await run.geoIndex.upsert({ courierId: courier.id, mode: 'test', vehicle: courier.vehicle, location: courier.location! });
    return courier;
  }

  /** The run's courier out of the store and the dispatch index. */
  async function removeCourier(run: SandboxRuntime, id: string): Promise<void> {
    const courier = await store.couriers.findById(id).catch(() => null);
    if (!courier) return;
    await run.geoIndex.remove({ courierId: id, mode: courier.mode, vehicle: courier.vehicle }).catch(() => null);
    await store.couriers.delete(id).catch(() => null);
  }

  /** One tick of a courier on its order (as the simulator drives): a step along the straight route, or the next status at a stop. */
  async function stepCourier(run: SandboxRuntime, courier: Courier, order: Order, factor: number): Promise<LatLng | null> {
    if (order.courierId !== courier.id || !courier.location) return null;
    switch (order.status) {
      case 'assigned':
      case 'picked_up': {
        const target = order.status === 'assigned' ? order.pickup : destinationOf(order);
        if (distanceMeters(courier.location, target) < 1) {
          await run.couriers.advanceOrder({ courier, ref: order.id, input: { status: order.status === 'assigned' ? 'arrived_pickup' : 'arrived_dropoff' } });
          return null;
        }
        const next = stepToward(courier.location, target, courier, TICK_S * factor);
        await run.couriers.reportPosition({ courier, input: next });
        return next;
      }
      case 'arrived_pickup':
        await run.couriers.advanceOrder({ courier, ref: order.id, input: { status: 'picked_up' } });
        return null;
      case 'arrived_dropoff':
        await run.couriers.confirmDelivery({ courier, ref: order.id, input: sandboxDelivery(courier, order) });
        return null;
      case 'returning': {
        // Back to the pickup, then the return is proven there.
        if (distanceMeters(courier.location, order.pickup) < 1) {
          const coords = { lat: order.pickup.lat, lng: order.pickup.lng };
          await run.couriers.confirmReturn({ courier, ref: order.id, input: { coords, ...SANDBOX_EVIDENCE } });
          return null;
        }
        const next = stepToward(courier.location, order.pickup, courier, TICK_S * factor);
        await run.couriers.reportPosition({ courier, input: next });
        return next;
      }
      default:
        return null;
    }
  }

  function stepToward(from: LatLng, to: LatLng, courier: Courier, seconds: number): LatLng {
    const speedKmh = vehicleTariff(tariff, courier.vehicle)?.speed_kmh ?? 20;
    const stepM = (speedKmh / 3.6) * seconds;
    const remaining = distanceMeters(from, to);
    if (remaining <= stepM) return { lat: to.lat, lng: to.lng };
    const f = stepM / remaining;
    // Rounded to 1e-7 degrees (about 1 cm): the same figures on every platform and store.
    const round = (v: number) => Math.round(v * 1e7) / 1e7;
    return { lat: round(from.lat + (to.lat - from.lat) * f), lng: round(from.lng + (to.lng - from.lng) * f) };
  }

  /** The run's deliveries: the merchant's test deliveries of this order created within the run's virtual time. */
  async function deliveriesOf(principal: MerchantPrincipal, orderId: string, from: string, end: Date): Promise<WebhookDelivery[]> {
    const out: WebhookDelivery[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await store.webhooks.listDeliveries({
        merchantId: principal.merchant.id, mode: 'test', createdFrom: from, createdTo: new Date(end.getTime() + 1).toISOString(), limit: 100, ...(after && { after }),
      });
      out.push(...page.filter((d) => d.orderId === orderId));
      if (page.length < 100) break;
      after = page.at(-1)!.id;
    }
    return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Makes the run's held deliveries due now, real time (those written as failed, an endpoint's backlog full, stay so). */
  async function releaseDeliveries(principal: MerchantPrincipal, deliveries: WebhookDelivery[]): Promise<void> {
    const now = new Date().toISOString();
    const held = deliveries.filter((d) => d.status === 'pending' && d.nextAttemptAt === RUN_DELIVERIES_HELD_UNTIL).map((d) => d.id);
    if (held.length > 0) await store.webhooks.requeue({ merchantId: principal.merchant.id, mode: 'test', ids: held, now });
  }

  return { startRun };
}
