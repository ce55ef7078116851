import { randomInt } from 'node:crypto';
import type { Clock } from '../../ports/clock.js';
import type { EventBus } from '../../ports/event-bus.js';
import type { IdSource } from '../../ports/ids.js';
import type { Geocoder } from '../../ports/geocoder.js';
import { DuplicateOrderIdentifierError, type Store } from '../../ports/store.js';
import type { MerchantPrincipal } from '../auth.js';
import type { DispatchService } from '../dispatch.js';
import { AppError } from '../errors.js';
import { minRoadMetres, resolveLocation, type ResolvedLocation } from '../locations.js';
import { parcelSize } from '../parcels.js';
import { priceRoute } from '../pricing.js';
import { resolvePrepTime, type QuoteService } from '../quotes.js';
import { planSchedule, withBatchWindow } from '../scheduling.js';
import type { Tariff } from '../tariffs.js';
import type { Courier, DeliveryPin, LedgerEntry, Order, OrderEvent, OrderStop, Stop } from '../types.js';
import { pathLengthM, planRoute } from './stops.js';
import { geohashOf } from './identifiers.js';
import { bindQuote } from './quote-binding.js';
import { orderStatusMessage } from './messages.js';
import type { Actor, OrderTransitions } from './transitions.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import type { NotificationOutbox } from '../notifications/outbox.js';
import {
  draftFromCommand,
  type CancelOrderCommand,
  type CreateOrderCommand,
  type ListOrdersQuery,
  type OrderDraft,
} from './schemas.js';
import { isOrderActive } from './state-machine.js';
import { previewCancellation, type CancellationPreview } from './cancellation.js';
import { tipLedgerEntry } from './tips.js';
import { timeScaleOf } from '../sandbox-time.js';
import { assertPermitted } from '../members/roles.js';
import { merchantScope, parseIdempotencyKey, requestHash, type IdempotencyService, type IdempotentCall } from '../idempotency.js';

const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/** Draws of fresh identifiers before a clash is reported as an error. */
const IDENTIFIER_ATTEMPTS = 5;

function toStop(location: ResolvedLocation): Stop {
  return Object.assign({}, location, { geohash: geohashOf(location) });
}

/** A fresh 4-digit delivery PIN (uniformly random, leading zeros kept). */
export function newDeliveryPin(issuedAt: string): DeliveryPin {
  return { pin: String(randomInt(0, 10_000)).padStart(4, '0'), failedAttempts: 0, issuedAt };
}

export type OrderService = ReturnType<typeof createOrderService>;

/** The operation of cancelOrder's idempotency records. */
export const CANCEL_ORDER = 'orders.cancel';

export function createOrderService(deps: {
  store: Store;
  geocoder: Geocoder;
  quotes: QuoteService;
  dispatch: DispatchService;
  bus: EventBus;
  transitions: OrderTransitions;
  outbox: WebhookOutbox;
  /** Recipient notifications of the creation (written with the order). */
  notifications?: NotificationOutbox;
  clock: Clock;
  ids: IdSource;
  tariff: Tariff;
  /** The sandbox simulator's default speed factor (test orders' estimates are divided by it). */
  sandboxSpeed: number;
  idempotency: IdempotencyService;
}) {
  const { store, geocoder, quotes, dispatch, bus, transitions, outbox, clock, ids, tariff, idempotency } = deps;

  /** A reversal gives back the price less what the merchant still owes (the cancellation fee). */
  function ledgerEntry(order: Order, kind: LedgerEntry['kind'], kept = 0): LedgerEntry | null {
    if (order.mode !== 'live') return null; // the sandbox never charges
    return {
      id: ids.next('led'), merchantId: order.merchantId, mode: order.mode, orderId: order.id, kind,
      amount: kind === 'charge' ? order.price : -(order.price - kept), at: clock.now().toISOString(),
    };
  }

  async function buildOrder(principal: MerchantPrincipal, draft: OrderDraft): Promise<Order> {
    const { merchant, mode } = principal;
    const [pickup, dropoffs] = await Promise.all([
      quotes.resolveOrigin(merchant, draft.pickup, 'pickup'),
      draft.stops
        ? Promise.all(draft.stops.map((stop, i) => resolveLocation({ geocoder, input: stop.address, field: `stops[${i}].address` })))
        : resolveLocation({ geocoder, input: draft.dropoff, field: 'dropoff' }).then((d) => [d]),
    ]);
    // A multi-stop order's drop-offs in visiting order; the last is the order's `dropoff`.
    const route = draft.stops ? planRoute({ origin: pickup, stops: dropoffs, route: draft.route ?? 'given' }) : [0];
    const visits = route.map((i) => dropoffs[i]!);
    const dropoff = visits.at(-1)!;
    const user = draft.customerRut ? await store.users.findByRut(draft.customerRut) : null;
    const now = clock.now();
    const size = parcelSize({ dimensions: draft.dimensions, items: draft.items });
    const price = priceRoute({
      tariff, origin: pickup, destination: dropoff, weightKg: draft.weightKg, size, prepTimeMins: resolvePrepTime(draft.prepTimeMins, merchant), now,
      minRoadM: Math.max(...visits.map((v) => minRoadMetres(pickup, v))),
      ...(visits.length > 1 && { via: visits.slice(0, -1) }),
    });
    if (draft.rateId !== undefined && draft.quoteId === undefined) {
      throw new AppError('VALIDATION_ERROR', 'A rate is only chosen with a quote', { fields: [{ field: 'rateId', message: 'is only accepted with a quote id' }] });
    }
    const bound = draft.quoteId === undefined
      ? null
      : await bindQuote({ store, clock, tariff, principal, quoteId: draft.quoteId, rateId: draft.rateId, pickup, dropoff, via: visits.slice(0, -1), weightKg: draft.weightKg, size });
    // Without a courier yet, the approach time is the tariff's default.
    const scale = timeScaleOf({ mode, merchant, defaultSpeed: deps.sandboxSpeed });
    const scheduled = planSchedule({
      now,
      // The order's own window, else the one the quote was asked for.
      request: { pickupAfter: draft.pickupAfter ?? bound?.quote.pickupAfter, deliverBefore: draft.deliverBefore ?? bound?.quote.deliverBefore },
      waitMs: (Math.max(price.prepTimeMins, tariff.default_approach_mins) * 60_000) / scale,
      travelMs: (price.travelMins * 60_000) / scale,
      approachMs: (tariff.default_approach_mins * 60_000) / scale,
    });
    // The batched rate is cheaper because it waits for companions: never dispatched as express.
    const plan = bound?.ref.rateId === 'batched'
      ? withBatchWindow(scheduled, { now, waitMs: (tariff.batched_extra_mins * 60_000) / scale })
      : Object.assign(scheduled, { batchWindow: null });
    const stops = draft.stops && stopsOf({ draft, route, visits, pickup, pickupAt: plan.pickupAt, deliveryAt: plan.deliveryAt });
    return {
      id: ids.next('bk'),
      merchantId: merchant.id,
      mode,
      orderNumber: ids.orderNumber(),
      trackingNumber: ids.trackingNumber(),
      referenceId: draft.referenceId,
      ecommerceOrderId: draft.ecommerceOrderId,
      status: 'new',
      pickup: toStop(pickup),
      dropoff: toStop(dropoff),
      customer: {
        name: draft.customerName,
        phone: draft.customerPhone,
        ...(draft.customerEmail && { email: draft.customerEmail }),
        rut: draft.customerRut,
        userId: user?.id ?? null,
        isRegisteredUser: user !== null,
      },
      paymentMode: draft.paymentMode,
      items: draft.items,
      notes: draft.notes,
      weightKg: draft.weightKg,
      dimensions: draft.dimensions ?? null,
      vehicleType: price.vehicleType,
      price: bound ? bound.price : price.price,
      currency: price.currency,
      prepTimeMins: price.prepTimeMins,
      estimatedPickupAt: plan.pickupAt.toISOString(),
      estimatedDeliveryAt: plan.deliveryAt.toISOString(),
      courierId: null,
      batchId: null,
      proof: null,
      cancellation: null,
      sequence: 1,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      quote: bound?.ref ?? null,
      scheduledPickupAt: plan.scheduledPickupAt,
      deliverBefore: plan.deliverBefore,
      dispatchAfter: plan.dispatchAfter,
      batchWindow: plan.batchWindow,
      // A multi-stop order's PINs are its stops' own.
      deliveryPin: draft.deliveryPin && !stops ? newDeliveryPin(now.toISOString()) : null,
      idCheck: draft.idCheck ?? null,
      ...(draft.codAmount !== undefined && { codAmount: draft.codAmount }),
      // The merchant's default is copied at creation: a later change of the setting leaves existing orders as booked.
      ...((draft.failedAttemptPolicy ?? merchant.settings.failedAttemptPolicy) && { failedAttemptPolicy: draft.failedAttemptPolicy ?? merchant.settings.failedAttemptPolicy }),
      ...(draft.tip && { tip: draft.tip }),
      ...(stops && { stops, route: draft.route ?? 'given' }),
      ...(stops && draft.deliveryPin && { stopPins: Object.fromEntries(stops.map((s) => [s.id, newDeliveryPin(now.toISOString())])) }),
    };
  }

  /**
   * The stops of a multi-stop order in visiting order, each with its ETA: the travel time shared out
   * along the path by distance, so the last stop is due when the order is.
   */
  function stopsOf(options: { draft: OrderDraft; route: number[]; visits: ResolvedLocation[]; pickup: ResolvedLocation; pickupAt: Date; deliveryAt: Date }): OrderStop[] {
    const { draft, route, visits, pickup, pickupAt, deliveryAt } = options;
    const total = pathLengthM([pickup, ...visits]);
    const travelMs = deliveryAt.getTime() - pickupAt.getTime();
    return route.map((given, index) => {
      const input = draft.stops![given]!;
      const share = total > 0 ? pathLengthM([pickup, ...visits.slice(0, index + 1)]) / total : 1;
      const location = toStop(visits[index]!);
      return {
        id: ids.next('stp'), index, givenIndex: given,
        location: input.instructions !== undefined ? Object.assign(location, { instructions: input.instructions }) : location,
        contact: { name: input.contactName, phone: input.contactPhone }, reference: input.reference ?? null, items: input.items ?? [],
        status: 'pending', eta: new Date(pickupAt.getTime() + Math.round(travelMs * share)).toISOString(),
        proof: null, failure: null, arrivedAt: null,
      };
    });
  }

  /**
   * Creates (or, for a repeated idempotency key with the same body, returns) an order, then tries
   * to dispatch it. The key is claimed in the same transaction as the order, under a unique index;
   * a repeated key is found there, so a first request pays no lookup. Only when the order cannot
   * be built is the key looked up first: a repeat still gets its order (or 422), not the error.
   */
  async function createOrderFromDraft(options: {
    principal: MerchantPrincipal;
    draft: OrderDraft;
    idempotencyKey?: string;
    hash: string;
    /** A request hash that also counts as "the same request" (keys stored before the current hashing); computed only for a replay. */
    priorHash?: () => string;
    actor: Actor;
  }): Promise<{ order: Order; created: boolean }> {
    assertPermitted(options.principal, 'dispatch');
    const { principal, draft } = options;
    const key = options.idempotencyKey === undefined ? undefined : parseIdempotencyKey(options.idempotencyKey);
    let order: Order;
    try {
      order = await buildOrder(principal, draft);
    } catch (error) {
      const replay = key && (await findReplay(principal, key, options.hash, options.priorHash));
      if (replay) return replay;
      throw error;
    }
    const [{ outbox: buildOutbox, feed: buildFeed }, notify] = await Promise.all([outbox.prepareChange(order, null), deps.notifications?.prepare(order)]);
    let result: Awaited<ReturnType<Store['orders']['create']>>;
    for (let attempt = 1; ; attempt++) {
      const event = Object.assign(transitions.newEvent(order, 'new', options.actor), { from: null, sequence: 1, at: order.createdAt });
      try {
        result = await store.orders.create({
          order,
          event,
          ...(buildOutbox && { outbox: buildOutbox(order, event) }),
          feed: buildFeed(order, event),
          ...(notify && { notifications: notify(order, event) }),
          ledger: [ledgerEntry(order, 'charge'), tipLedgerEntry({ order, amount: order.tip ?? 0, ids, at: order.createdAt })].filter((e) => e !== null),
          idempotency: key
            ? { merchantId: order.merchantId, mode: order.mode, key, requestHash: options.hash, orderId: order.id, createdAt: order.createdAt, expiresAt: new Date(Date.parse(order.createdAt) + IDEMPOTENCY_TTL_MS).toISOString() }
            : null,
        });
        break;
      } catch (error) {
        // Random identifiers collide now and then (10-digit order numbers: ~5 % of runs of 30,000
        // orders); draw new ones.
        if (!(error instanceof DuplicateOrderIdentifierError) || attempt >= IDENTIFIER_ATTEMPTS) throw error;
        order = Object.assign({}, order, { id: ids.next('bk'), orderNumber: ids.orderNumber(), trackingNumber: ids.trackingNumber() });
      }
    }
    if (!result.created) return replayOf(principal, result.existing, options.hash, options.priorHash);
    notify?.report();
    await bus.publish(orderStatusMessage(order, null));
    return { order: await dispatch.dispatchOrder({ order }), created: true };
  }

  async function findReplay(principal: MerchantPrincipal, key: string, hash: string, priorHash?: () => string) {
    const existing = await store.orders.findIdempotencyKey({ merchantId: principal.merchant.id, mode: principal.mode, key });
    if (!existing || existing.expiresAt <= clock.now().toISOString()) return null;
    return replayOf(principal, existing, hash, priorHash);
  }

  async function replayOf(principal: MerchantPrincipal, existing: { requestHash: string; orderId: string }, hash: string, priorHash?: () => string) {
    if (existing.requestHash !== hash && existing.requestHash !== priorHash?.()) {
      throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This idempotency-key was already used with a different request body');
    }
    const order = await store.orders.findById(existing.orderId);
    if (!order || order.merchantId !== principal.merchant.id || order.mode !== principal.mode) {
      throw new AppError('INTERNAL_ERROR', 'idempotency record points to a missing order');
    }
    return { order, created: false };
  }

  /**
   * A repeated idempotency key must repeat the command (so REST and GraphQL share one key space).
   * `rawBody`: the REST body as sent, whose hash keys stored before commands were hashed hold
   * (accepted until they expire, 24 h after the upgrade; then this option can go).
   */
  async function createOrder(options: { principal: MerchantPrincipal; input: CreateOrderCommand; idempotencyKey?: string; rawBody?: unknown }) {
    return createOrderFromDraft({
      principal: options.principal,
      draft: draftFromCommand(options.input),
      hash: requestHash(options.input),
      ...(options.rawBody !== undefined && options.idempotencyKey !== undefined && { priorHash: () => requestHash(options.rawBody) }),
      actor: { kind: 'merchant', id: options.principal.merchant.id },
      ...(options.idempotencyKey !== undefined && { idempotencyKey: options.idempotencyKey }),
    });
  }

  async function getOrder(options: { principal: MerchantPrincipal; ref: string }): Promise<Order> {
    const ref = options.ref.trim();
    const order = ref.length > 0 && ref.length <= 128
      ? await store.orders.findByAnyId({ merchantId: options.principal.merchant.id, mode: options.principal.mode, ref })
      : null;
    if (!order) throw new AppError('ORDER_NOT_FOUND', `No order ${ref.slice(0, 64)} for this merchant in ${options.principal.mode} mode`);
    return (await asCarried([order]))[0]!;
  }

  /**
   * Orders as the views show them: while batched, an order rides in its batch's vehicle, so that is
   * its vehicle_type. The stored class (the one that priced it) stays, for when it leaves the batch.
   */
  async function asCarried(orders: Order[]): Promise<Order[]> {
    const batchIds = [...new Set(orders.flatMap((o) => (o.batchId ? [o.batchId] : [])))];
    if (batchIds.length === 0) return orders;
    const batches = new Map((await Promise.all(batchIds.map((id) => store.batches.findById(id)))).flatMap((b) => (b ? [[b.id, b] as const] : [])));
    return orders.map((o) => {
      const batch = o.batchId ? batches.get(o.batchId) : undefined;
      return batch && batch.vehicleType !== o.vehicleType ? Object.assign({}, o, { vehicleType: batch.vehicleType }) : o;
    });
  }

  /** The courier of an order the caller already holds (read through a scoped call). */
  async function driverOf(options: { order: Pick<Order, 'courierId'> }): Promise<Courier | null> {
    return options.order.courierId ? store.couriers.findById(options.order.courierId) : null;
  }

  /** The history of an order the caller already holds, in sequence order. */
  async function eventsOf(options: { order: Pick<Order, 'id'> }): Promise<OrderEvent[]> {
    return store.orders.listEvents(options.order.id);
  }

  /** The order with its courier, for the detail views. */
  async function getOrderDetails(options: { principal: MerchantPrincipal; ref: string }) {
    const order = await getOrder(options);
    return { order, courier: await driverOf({ order }) };
  }

  async function listOrders(options: { principal: MerchantPrincipal; input: ListOrdersQuery }) {
    const { input } = options;
    const statuses = input.status === undefined ? undefined : Array.isArray(input.status) ? input.status : [input.status];
    const orders = await store.orders.list({
      merchantId: options.principal.merchant.id,
      mode: options.principal.mode,
      limit: input.limit + 1,
      ...(statuses && { statuses }),
      ...(input.createdFrom && { createdFrom: new Date(input.createdFrom).toISOString() }),
      ...(input.createdTo && { createdTo: new Date(input.createdTo).toISOString() }),
      ...(input.after && { after: input.after }),
    });
    const page = orders.slice(0, input.limit);
    return { orders: await asCarried(page), nextCursor: orders.length > input.limit ? page.at(-1)!.id : null };
  }

  async function listOrderEvents(options: { principal: MerchantPrincipal; ref: string }) {
    return eventsOf({ order: await getOrder(options) });
  }

  /** What cancelling an order the caller already holds would cost now, and until when that holds. */
  function cancellationOf(options: { order: Order }): CancellationPreview {
    return previewCancellation({ order: options.order, at: clock.now(), tariff });
  }

  async function previewOrderCancellation(options: { principal: MerchantPrincipal; ref: string }) {
    const order = await getOrder(options);
    return { order, preview: cancellationOf({ order }) };
  }

  /**
   * Cancels an order not yet picked up; the courier (if any) is freed and a live charge reversed
   * but for the cancellation fee of the status it left, written in the same store change.
   */
  async function cancelOrder(options: { principal: MerchantPrincipal; ref: string; input: CancelOrderCommand } & IdempotentCall): Promise<Order> {
    const { principal, ref, input } = options;
    return idempotency.runCommand(options, { scope: merchantScope(principal, CANCEL_ORDER), request: { ref, input } }, async () => {
      assertPermitted(principal, 'dispatch');
      const order = await getOrder(options);
      return cancel({ order, actor: { kind: 'merchant', id: order.merchantId }, reason: input.reason ?? null });
    });
  }

  /** An operator cancels on the merchant's behalf: the same rules, fee, reversal and webhooks as the merchant's own cancel. */
  async function cancelOnBehalf(options: { order: Order; actor: Actor; reason: string }): Promise<Order> {
    return cancel(options);
  }

  async function cancel(options: { order: Order; actor: Actor; reason: string | null }): Promise<Order> {
    const { order, reason } = options;
    const cancelled = await transitions.transition({
      order,
      to: 'cancelled',
      actor: options.actor,
      reason,
      settle: (from) => {
        const fee = previewCancellation({ order: from, at: clock.now(), tariff }).fee ?? 0;
        return { patch: { cancellation: { reason, at: clock.now().toISOString(), fee } }, ledger: ledgerEntry(from, 'reversal', fee) };
      },
    });
    await afterOrderEnded(cancelled);
    return cancelled;
  }

  /** Frees the courier once its job (the order, or every order of its batch) has ended. */
  async function afterOrderEnded(order: Order): Promise<void> {
    if (order.batchId) {
      const batch = await store.batches.findById(order.batchId);
      if (!batch) return;
      const orders = await Promise.all(batch.orderIds.map((id) => store.orders.findById(id)));
      if (orders.some((o) => o && isOrderActive(o))) return;
      const allCancelled = orders.every((o) => !o || o.status === 'cancelled');
      await store.batches.update({ id: batch.id, from: ['pending', 'assigned'], patch: { status: allCancelled ? 'cancelled' : 'completed' }, updatedAt: clock.now().toISOString() });
      if (batch.courierId) await dispatch.releaseCourier({ courierId: batch.courierId, jobId: batch.id });
      return;
    }
    if (order.courierId) await dispatch.releaseCourier({ courierId: order.courierId, jobId: order.id });
  }

  return { createOrder, createOrderFromDraft, getOrder, getOrderDetails, driverOf, eventsOf, listOrders, listOrderEvents, cancellationOf, previewOrderCancellation, cancelOrder, cancelOnBehalf, afterOrderEnded };
}
