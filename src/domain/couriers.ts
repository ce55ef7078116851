import { z } from 'zod';
import type { Clock } from '../ports/clock.js';
import type { EventBus } from '../ports/event-bus.js';
import type { CourierGeoIndex } from '../ports/geo-index.js';
import type { Store } from '../ports/store.js';
import { createCourierSnapshots, type CourierSnapshot } from './courier-snapshots.js';
import type { DispatchService } from './dispatch.js';
import { AppError } from './errors.js';
import { distanceMeters, isInServiceArea, isPreciseStop } from './geo.js';
import { latLngSchema } from './locations.js';
import type { LiveEtaService } from './eta/live-eta.js';
import type { DeliveryService } from './orders/delivery.js';
import type { ConfirmReturnCommand, FailedAttemptService, ReportFailedAttemptCommand } from './orders/failed-attempts.js';
import type { ConfirmDeliveryCommand } from './orders/schemas.js';
import { ORDER_NOTES } from './orders/notes.js';
import type { Actor, OrderTransitions } from './orders/transitions.js';
import { assertCurrentStop, currentStop, stopIdSchema, withStopMoved } from './orders/stops.js';
import { arriveAtStop, assertOnTheRoad } from './orders/stop-moves.js';
import type { WebhookOutbox } from './webhooks/outbox.js';
import { forbiddenMove, isOrderActive } from './orders/state-machine.js';
import type { Courier, LatLng, Order } from './types.js';
import { isPlausibleMove, type PositionPlausibility } from './position-plausibility.js';
import { checkShiftEnd } from './shifts.js';
import { courierScope, type IdempotencyService, type IdempotentCall, type IdempotentOperation } from './idempotency.js';
import { ORDER_STATUS_SETS } from './vocabulary.js';

/** A reported position this close to a stop marks the arrival there. */
export const ARRIVAL_RADIUS_M = 50;

// The courier's commands in the domain's terms (REST maps its snake_case bodies onto them in rest/wire/).
export const setDutyCommandSchema = z.strictObject({
  onDuty: z.boolean(),
  /**
   * Going on duty: when the duty is planned to end (future, at most MAX_SHIFT_HOURS ahead; null or
   * absent: no planned end). Already on duty: changes it (null clears it). Not with going off duty.
   */
  shiftEndsAt: z.iso.datetime({ offset: true }).nullable().optional(),
});
export type SetDutyCommand = z.output<typeof setDutyCommandSchema>;
export const reportPositionCommandSchema = latLngSchema.extend({
  heading: z.number().min(0).max(360).optional(),
  speedKmh: z.number().min(0).max(250).optional(),
  accuracyM: z.number().min(0).max(10_000).optional(),
  /** When the phone took the fix (a backlog sent after a dead zone); default: when it arrives. */
  recordedAt: z.iso.datetime({ offset: true }).optional(),
});
export type ReportPositionCommand = z.output<typeof reportPositionCommandSchema>;
/** The moves a courier makes itself (the delivery has its own command). */
export const advanceOrderCommandSchema = z.strictObject({
  status: z.enum(ORDER_STATUS_SETS.courierMoves),
  /** A multi-stop order's arrival: the stop arrived at, which must be the current one (default: the current one). */
  stop_id: stopIdSchema.optional(),
});
export type AdvanceOrderCommand = z.output<typeof advanceOrderCommandSchema>;
export const releaseOrderCommandSchema = z.strictObject({ reason: z.string().trim().max(500).optional() });
export type ReleaseOrderCommand = z.output<typeof releaseOrderCommandSchema>;

export type CourierService = ReturnType<typeof createCourierService>;

/** The operations of the courier commands' idempotency records, one per command. */
export const SET_DUTY = 'couriers.duty';
export const REPORT_POSITION = 'couriers.position';
export const ADVANCE_ORDER = 'couriers.advance';
export const RELEASE_ORDER = 'couriers.release';
export const COURIER_CONFIRM_DELIVERY = 'couriers.deliver';
export const REPORT_FAILED_ATTEMPT = 'couriers.failed_attempt';
export const CONFIRM_RETURN = 'couriers.return';

/** What couriers do: go on or off duty, report positions, move their orders along, drop out. */
/** A stored position this close to going stale is refreshed at once, not with the next batch. */
const PROMPT_WRITE_MARGIN_MS = 10_000;

export function createCourierService(deps: {
  store: Store;
  geoIndex: CourierGeoIndex;
  dispatch: DispatchService;
  delivery: DeliveryService;
  failedAttempts: FailedAttemptService;
  transitions: OrderTransitions;
  outbox: WebhookOutbox;
  liveEta: LiveEtaService;
  bus: EventBus;
  clock: Clock;
  /** Positions a courier could not have reached are refused; null: every position is believed (a sandbox run's own service). */
  plausibility?: PositionPlausibility | null;
  idempotency: IdempotencyService;
}) {
  const { store, geoIndex, dispatch, delivery, transitions, outbox, liveEta, bus, clock, idempotency } = deps;
  const plausibility = deps.plausibility ?? null;
  const now = () => clock.now().toISOString();
  /** A courier command under the courier's own key (`call`). */
  const keyed = <T>(call: IdempotentCall & { courier: Courier }, operation: IdempotentOperation, request: unknown, execute: () => Promise<T>): Promise<T> =>
    idempotency.runCommand(call, { scope: courierScope(call.courier, operation), request }, execute);

  /** The courier as stored now (the copy its token was checked against may be older). */
  async function getProfile(options: { courier: Courier }): Promise<Courier> {
    return (await store.couriers.findById(options.courier.id)) ?? options.courier;
  }

  /** The orders of the courier's current job (one order, or the orders of its batch). */
  async function activeOrders(courier: Courier): Promise<Order[]> {
    if (!courier.job) return [];
    const ids = courier.job.kind === 'order' ? [courier.job.id] : ((await store.batches.findById(courier.job.id))?.orderIds ?? []);
    const found = await Promise.all(ids.map((id) => store.orders.findById(id)));
    return found.filter((o): o is Order => !!o && o.courierId === courier.id && isOrderActive(o));
  }

  const snapshots = createCourierSnapshots({
    bus,
    nowMs: Date.now,
    read: async (courierId): Promise<CourierSnapshot | null> => {
      const courier = await store.couriers.findById(courierId);
      return courier && { courier, orders: await activeOrders(courier) };
    },
  });

  /**
   * A new planned end (already checked by checkShiftEnd) for a courier on duty; null when it is off
   * duty. A later end may make queued work reachable: a free courier is offered it at once.
   */
  async function changeShiftEnd(options: { courierId: string; shiftEndsAt: string | null }): Promise<Courier | null> {
    const changed = await store.couriers.setShiftEnd({ id: options.courierId, shiftEndsAt: options.shiftEndsAt, updatedAt: now() });
    if (changed?.status === 'available') await dispatch.offerWork({ courier: changed });
    return changed && ((await store.couriers.findById(changed.id)) ?? changed);
  }

  /**
   * On duty (with a planned end, when given: dispatch then offers nothing it cannot pick up before
   * it), or off duty (refused while busy). On duty again with `shiftEndsAt` changes the planned end.
   */
  async function setDuty(options: { courier: Courier; input: SetDutyCommand } & IdempotentCall): Promise<Courier> {
    const { courier, input } = options;
    return keyed(options, SET_DUTY, { input }, () => changeDuty({ courier, input }));
  }

  async function changeDuty(options: { courier: Courier; input: SetDutyCommand }): Promise<Courier> {
    const { courier, input } = options;
    if (input.onDuty) {
      const given = input.shiftEndsAt === undefined ? undefined : checkShiftEnd({ shiftEndsAt: input.shiftEndsAt, now: clock.now() });
      if (courier.status !== 'off_duty') {
        if (given === undefined) return courier;
        const changed = await changeShiftEnd({ courierId: courier.id, shiftEndsAt: given });
        if (!changed) throw new AppError('CONFLICT', 'You just went off duty; go on duty again');
        return changed;
      }
      const updated = await store.couriers.setStatus({ id: courier.id, status: 'available', from: ['off_duty'], shiftEndsAt: given ?? null, updatedAt: now() });
      if (updated) await dispatch.offerWork({ courier: updated });
      return (await store.couriers.findById(courier.id)) ?? courier;
    }
    if (input.shiftEndsAt !== undefined) {
      throw new AppError('VALIDATION_ERROR', 'shift_ends_at is only accepted when going on duty', { fields: [{ field: 'shift_ends_at', message: 'not accepted here' }] });
    }
    if (courier.status === 'busy') throw new AppError('CONFLICT', 'Finish or release your current job before going off duty');
    const updated = await store.couriers.setStatus({ id: courier.id, status: 'off_duty', from: ['available', 'off_duty'], shiftEndsAt: null, updatedAt: now() });
    if (!updated) throw new AppError('CONFLICT', 'You were just assigned a job; finish or release it first');
    await geoIndex.remove({ courierId: courier.id, mode: courier.mode, vehicle: courier.vehicle });
    return updated;
  }

  /** Stores and publishes the position; the orders' estimates follow it (live ETA); marks arrivals at the stops of the courier's orders. */
  /**
   * The time a fix counts at: when the phone took it, when given (never later than now, never more
   * than a minute ahead of the server nor older than a day: a phone's clock is not trusted further).
   */
  function fixTime(recordedAt: string | undefined): string {
    const arrived = now();
    if (recordedAt === undefined) return arrived;
    const taken = Date.parse(recordedAt);
    const nowMs = Date.parse(arrived);
    if (taken > nowMs + 60_000 || taken < nowMs - 86_400_000) {
      throw new AppError('VALIDATION_ERROR', 'recordedAt must be within the last 24 hours and at most a minute ahead', { fields: [{ field: 'recordedAt', message: 'out of range' }] });
    }
    return new Date(Math.min(taken, nowMs)).toISOString();
  }

  /** `simulated`: the sandbox simulator's own courier, driven faster than life (never checked for plausibility). */
  async function reportPosition(options: { courier: Courier; input: ReportPositionCommand; simulated?: boolean } & IdempotentCall): Promise<{ courier: Courier; arrivals: Order[]; stale?: boolean }> {
    const { courier, input, simulated } = options;
    return keyed(options, REPORT_POSITION, { input }, () => report({ courier, input, simulated }));
  }

  /** `orders`: the courier's active orders when already in hand (a snapshot), else read here. */
  async function report(options: { courier: Courier; orders?: Order[]; input: ReportPositionCommand; simulated?: boolean }): Promise<{ courier: Courier; arrivals: Order[]; stale?: boolean }> {
    const location: LatLng = { lat: options.input.lat, lng: options.input.lng };
    if (!isInServiceArea(location)) throw new AppError('OUTSIDE_SERVICE_AREA', 'The position is outside the service area');
    const at = fixTime(options.input.recordedAt);
    // A fix older than the one stored (a backlog behind a newer report) never replaces it.
    if (options.courier.locationAt !== null && at < options.courier.locationAt) return { courier: options.courier, arrivals: [], stale: true };
    // A fix the courier could not have reached from the last accepted one is refused: never stored,
    // so never an arrival, a dispatch candidate, an estimate or a map position.
    const last = options.courier.location && options.courier.locationAt ? { location: options.courier.location, at: options.courier.locationAt } : null;
    if (plausibility && !options.simulated && !isPlausibleMove({ rule: plausibility, vehicle: options.courier.vehicle, from: last, to: { location, at } })) {
      throw new AppError('IMPLAUSIBLE_POSITION', `The position is too far from the last one for the time between them (over ${plausibility.maxSpeedKmh[options.courier.vehicle]} km/h for a ${options.courier.vehicle}): discarded`);
    }
    // A courier that is not (or soon not) live as stored: other nodes read the store before they
    // dispatch to an index entry, so this position is written at once rather than with the next batch.
    const prompt = options.courier.status === 'available' && !dispatch.isLive(options.courier, PROMPT_WRITE_MARGIN_MS);
    await store.couriers.setLocations([{ id: options.courier.id, location, at, prompt }]);
    const courier: Courier = Object.assign({}, options.courier, { location, locationAt: at });
    if (courier.status === 'available') {
      await geoIndex.upsert({ courierId: courier.id, mode: courier.mode, vehicle: courier.vehicle, location });
    }
    const active = options.orders ?? (await activeOrders(courier));
    const eta = await liveEta.followCourier({ courier, location, orders: active, at });
    const webhooks = active.length > 0 ? await outbox.courierLocation({ orders: active, courier, location, at }) : 0;
    await bus.publish({
      type: 'courier.position', courierId: courier.id, mode: courier.mode, location, orderIds: active.map((o) => o.id), estimates: eta.estimates, at,
      wroteWebhooks: webhooks > 0 || eta.wroteWebhooks,
    });
    const arrivals: Order[] = [];
    for (const order of active) {
      const target = order.status === 'assigned' ? 'arrived_pickup' : order.status === 'picked_up' ? 'arrived_dropoff' : null;
      const current = currentStop(order);
      const stop = target === 'arrived_pickup' ? order.pickup : (current?.location ?? order.dropoff);
      // Only at precise stops: near a comuna's point says nothing about being at the door.
      if (target && isPreciseStop(stop) && distanceMeters(location, stop) <= ARRIVAL_RADIUS_M) {
        const stops = target === 'arrived_dropoff' && current ? withStopMoved(order, current.id, 'arrived', { arrivedAt: at }) : undefined;
        const moved = await transitions.tryTransition({ order, to: target, actor: { kind: 'courier', id: courier.id }, location, ...(stops && { patch: { stops } }) });
        if (moved) arrivals.push(moved);
      }
    }
    return { courier, arrivals };
  }

  /** Keeps the courier's snapshot (courier-snapshots.ts) for its session's reports; returns the release. */
  function holdSession(options: { courierId: string }): () => void {
    return snapshots.hold(options.courierId);
  }

  /**
   * A report over a held session (the courier socket): the courier and its active orders as stored
   * now, since its status and job may have changed since it connected — from the session's
   * snapshot while no change was published, else read from the store.
   */
  async function reportSessionPosition(options: { courierId: string; input: ReportPositionCommand }): Promise<{ courier: Courier; arrivals: Order[]; stale?: boolean }> {
    const snapshot = await snapshots.get(options.courierId);
    if (!snapshot || snapshot.courier.accountStatus !== 'active') throw new AppError('INVALID_COURIER_TOKEN', 'Courier token no longer valid');
    const reported = await report({ courier: snapshot.courier, orders: snapshot.orders, input: options.input });
    snapshots.moved(snapshot, reported.courier);
    return reported;
  }

  /** The courier's own order: anything else is "not found", never another courier's data. */
  async function courierOrder(courier: Courier, ref: string): Promise<Order> {
    const order = ref.length <= 128 ? await store.orders.findById(ref.trim()) : null;
    if (!order || order.courierId !== courier.id || order.mode !== courier.mode) throw new AppError('ORDER_NOT_FOUND', 'No such order assigned to you');
    return order;
  }

  async function advanceOrder(options: { courier: Courier; ref: string; input: AdvanceOrderCommand } & IdempotentCall): Promise<Order> {
    const { courier, ref, input } = options;
    return keyed(options, ADVANCE_ORDER, { ref, input }, () => advance({ courier, ref, input }));
  }

  async function advance(options: { courier: Courier; ref: string; input: AdvanceOrderCommand }): Promise<Order> {
    const order = await courierOrder(options.courier, options.ref);
    const { status, stop_id: stopId } = options.input;
    const actor: Actor = { kind: 'courier', id: options.courier.id };
    // Back to `picked_up` after a drop-off is the stop service's move (the next stop), never the courier's own.
    if (status === 'picked_up' && order.status === 'arrived_dropoff') throw forbiddenMove(order.status, status);
    if (status === 'arrived_dropoff' && order.stops) {
      assertOnTheRoad(order);
      const stop = assertCurrentStop(order, stopId);
      return arriveAtStop({ transitions, order, stopId: stop.id, actor, location: options.courier.location, at: now() });
    }
    if (stopId !== undefined) throw new AppError('VALIDATION_ERROR', 'stopId is only accepted with arrived_dropoff on a multi-stop order', { fields: [{ field: 'stopId', message: 'not accepted here' }] });
    return transitions.transition({ order, to: status, actor, location: options.courier.location });
  }

  /** The courier drops out before pickup: the order goes back to `new` and is dispatched again. */
  async function releaseOrder(options: { courier: Courier; ref: string; input: ReleaseOrderCommand } & IdempotentCall): Promise<Order> {
    const { courier, ref, input } = options;
    return keyed(options, RELEASE_ORDER, { ref, input }, () => release({ courier, ref, input }));
  }

  async function release(options: { courier: Courier; ref: string; input: ReleaseOrderCommand }): Promise<Order> {
    const { reason } = options.input;
    const order = await courierOrder(options.courier, options.ref);
    const released = await transitions.transition({
      order, to: 'new', actor: { kind: 'courier', id: options.courier.id },
      patch: { courierId: null, batchId: null }, reason: reason ?? ORDER_NOTES.courierReleased,
    });
    if (options.courier.job?.kind === 'order') {
      await store.couriers.setStatus({ id: options.courier.id, status: 'available', from: ['busy'], fromJobId: order.id, job: null, updatedAt: now() });
    }
    const redispatched = await dispatch.dispatchOrder({ order: released });
    const courier = await store.couriers.findById(options.courier.id);
    if (courier?.status === 'available') await dispatch.offerWork({ courier, skipOrderId: order.id });
    return redispatched;
  }

  /**
   * A disabled courier drops out: it leaves the geo index, its assigned orders go back to `new` and
   * are dispatched again. Orders past that (at or beyond the pickup) stay with it, since the
   * lifecycle has no way to hand them over: it then stays busy on that job, else goes off duty.
   */
  async function withdrawCourier(options: { courierId: string; reason: string }): Promise<{ courier: Courier; releasedOrderIds: string[]; keptOrderIds: string[] }> {
    const found = await store.couriers.findById(options.courierId);
    if (!found) throw new AppError('COURIER_NOT_FOUND', `No courier ${options.courierId}`);
    await geoIndex.remove({ courierId: found.id, mode: found.mode, vehicle: found.vehicle });
    const released: Order[] = [];
    for (const order of await activeOrders(found)) {
      if (order.status !== 'assigned') continue;
      // Null when it moved on meanwhile: it then counts as kept, or is done.
      const back = await transitions.tryTransition({ order, to: 'new', actor: { kind: 'admin', id: null }, patch: { courierId: null, batchId: null }, reason: options.reason });
      if (back) released.push(back);
    }
    const kept = await activeOrders(found);
    const courier = kept.length > 0 ? found : ((await store.couriers.setStatus({ id: found.id, status: 'off_duty', job: null, shiftEndsAt: null, updatedAt: now() })) ?? found);
    for (const order of released) await dispatch.dispatchOrder({ order });
    return { courier, releasedOrderIds: released.map((o) => o.id), keptOrderIds: kept.map((o) => o.id) };
  }

  async function confirmDelivery(options: { courier: Courier; ref: string; input: ConfirmDeliveryCommand } & IdempotentCall) {
    const { courier, ref, input } = options;
    return keyed(options, COURIER_CONFIRM_DELIVERY, { ref, input }, async () => {
      const order = await courierOrder(courier, ref);
      return delivery.deliverOrder({ order, input, actor: { kind: 'courier', id: courier.id }, courierId: courier.id });
    });
  }

  /** The courier could not deliver one of its orders: recorded, then moved on by the order's policy. */
  async function reportFailedAttempt(options: { courier: Courier; ref: string; input: ReportFailedAttemptCommand } & IdempotentCall): Promise<Order> {
    const { courier, ref, input } = options;
    return keyed(options, REPORT_FAILED_ATTEMPT, { ref, input }, async () => {
      const order = await courierOrder(courier, ref);
      return deps.failedAttempts.reportFailedAttempt({ order, courierId: courier.id, input });
    });
  }

  /** The courier brought a returning order back to the pickup. */
  async function confirmReturn(options: { courier: Courier; ref: string; input: ConfirmReturnCommand } & IdempotentCall): Promise<Order> {
    const { courier, ref, input } = options;
    return keyed(options, CONFIRM_RETURN, { ref, input }, async () => {
      const order = await courierOrder(courier, ref);
      return deps.failedAttempts.confirmReturn({ order, courierId: courier.id, input });
    });
  }

  return {
    getProfile, setDuty, changeShiftEnd, reportPosition, holdSession, reportSessionPosition, snapshotStats: snapshots.stats, advanceOrder, releaseOrder, withdrawCourier, confirmDelivery,
    reportFailedAttempt, confirmReturn, activeOrders,
  };
}
