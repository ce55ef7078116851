import type { Clock } from '../../ports/clock.js';
import type { CourierGeoIndex } from '../../ports/geo-index.js';
import type { AcrossMerchantsPage, AcrossMerchantsResult, Store } from '../../ports/store.js';
import type { DispatchService } from '../dispatch.js';
import { AppError } from '../errors.js';
import { MODES, ORDER_STATUSES, type Courier, type Order, type OrderEvent } from '../types.js';
import { parseInput } from '../validation.js';
import { operatorAssignSchema, operatorCancelSchema, operatorListOrdersSchema, operatorOrderRefSchema, operatorReleaseSchema } from './schemas.js';
import type { OrderService } from './service.js';
import { isOrderActive } from './state-machine.js';
import type { Actor, OrderTransitions } from './transitions.js';
import { ORDER_NOTES } from './notes.js';
import type { ComunaZones } from './comuna-zones.js';
import { isStatusIn } from '../vocabulary.js';

const newestFirst = (a: Order, b: Order) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1);

/**
 * The most orders one page of the operators' list reads (issue #41): a filter no index serves
 * costs at most this many rows per request; past it the page is partial, with a cursor.
 */
export const OPERATOR_LIST_EXAMINE_MAX = 5000;


/** Past its ETA or its delivery window's end, and still in progress. */
export function isOrderLate(order: Pick<Order, 'status' | 'estimatedDeliveryAt' | 'deliverBefore'>, now: Date): boolean {
  if (!isOrderActive(order)) return false;
  const at = now.getTime();
  return Date.parse(order.estimatedDeliveryAt) < at || (!!order.deliverBefore && Date.parse(order.deliverBefore) < at);
}

export type OperatorOrders = ReturnType<typeof createOperatorOrders>;

/**
 * Operators' orders (issue #29): every merchant's, read and overridden. Overrides go through the
 * lifecycle's transitions like every other move (a refused move is the same 409 as elsewhere);
 * the audited admin records each one (audited-admin.ts).
 */
export function createOperatorOrders(deps: {
  store: Store;
  geoIndex: CourierGeoIndex;
  dispatch: DispatchService;
  transitions: OrderTransitions;
  orders: Pick<OrderService, 'cancelOnBehalf'>;
  clock: Clock;
  /** The comunas a list may be filtered by (issue #38). */
  comunas: ComunaZones;
  /** The most orders one page of the list reads (OPERATOR_LIST_EXAMINE_MAX unless given). */
  examineAtMost?: number;
}) {
  const { store, geoIndex, dispatch, transitions, orders, clock, comunas } = deps;
  const examineAtMost = deps.examineAtMost ?? OPERATOR_LIST_EXAMINE_MAX;
  const now = () => clock.now().toISOString();

  async function findOrder(orderId: string): Promise<Order> {
    const order = await store.orders.findById(orderId);
    if (!order) throw new AppError('ORDER_NOT_FOUND', `No order ${orderId}`);
    return order;
  }

  async function listOrders(options: { input: unknown }): Promise<{ orders: Order[]; nextCursor: string | null }> {
    const { first, status, mode, late, zone, comuna, merchantId, createdFrom, createdTo, after } = parseInput(operatorListOrdersSchema, options.input);
    const asked = status?.length ? status : [...ORDER_STATUSES];
    const page: AcrossMerchantsPage = {
      modes: mode ? [mode] : [...MODES],
      statuses: late ? asked.filter((s) => isStatusIn('active', s)) : asked,
      limit: first + 1,
      ...(merchantId && { merchantId }), ...(createdFrom && { createdFrom }), ...(createdTo && { createdTo }), ...(after && { after }),
      ...(late && { lateAt: now() }), ...(zone && { pickupZone: zone }),
      examineAtMost,
    };
    if (comuna) return listInComuna(comuna, page, first);
    return pageOf(await store.orders.listAcrossMerchants(page), first);
  }

  function pageOf(found: AcrossMerchantsResult, first: number): { orders: Order[]; nextCursor: string | null } {
    const page = found.orders.slice(0, first);
    // A partial page (issue #41): the store stopped at its bound of orders read; go on from the last one read.
    return { orders: page, nextCursor: found.orders.length > first ? page.at(-1)!.id : found.resumeAfter };
  }

  /**
   * A comuna's orders (issue #38): one seek per geohash-5 cell the comuna touches (each bounded by
   * the page's size), merged newest first; the orders of the page's window whose pickup is not in
   * the comuna are left out, so a page may be partial, with a cursor to go on from.
   */
  async function listInComuna(name: string, page: AcrossMerchantsPage, first: number): Promise<{ orders: Order[]; nextCursor: string | null }> {
    const found = comunas.find(name);
    if (!found) throw new AppError('VALIDATION_ERROR', `No comuna named ${name}`, { fields: [{ field: 'comuna', message: 'not a comuna of the service area' }] });
    const perCell = await Promise.all(found.cells.map((cell) => store.orders.listAcrossMerchants(Object.assign({}, page, { pickupZone: cell }))));
    const window = perCell.flatMap((r) => r.orders).sort(newestFirst).slice(0, first + 1);
    const examined = window.slice(0, first);
    const orders = examined.filter((o) => comunas.contains(found.name, o.pickup));
    // A cell's read stopped at its bound: go on from the newest place one stopped at (nothing newer is missed).
    const stopped = perCell.flatMap((r) => (r.resumeAfter ? [r.resumeAfter] : [])).sort().at(-1) ?? null;
    return { orders, nextCursor: window.length > first ? examined.at(-1)!.id : stopped };
  }

  /** One order with its timeline (its events, in sequence). */
  async function getOrder(options: { input: unknown }): Promise<{ order: Order; timeline: OrderEvent[] }> {
    const order = await findOrder(parseInput(operatorOrderRefSchema, options.input).orderId);
    return { order, timeline: await store.orders.listEvents(order.id) };
  }

  /** A courier the operator may give this order to: active, of the order's mode, on duty and free, with a vehicle that carries it. */
  async function eligibleCourier(courierId: string, order: Order): Promise<Courier> {
    const courier = await store.couriers.findById(courierId);
    if (!courier) throw new AppError('COURIER_NOT_FOUND', `No courier ${courierId}`);
    const refuse = (why: string) => new AppError('CONFLICT', `Courier ${courierId} cannot take order ${order.id}: ${why}`, { details: { courierId, orderId: order.id } });
    if (courier.mode !== order.mode) throw refuse(`it is a ${courier.mode} courier and the order is ${order.mode}`);
    if (courier.accountStatus !== 'active') throw refuse('its account is disabled');
    if (courier.status !== 'available') throw refuse(courier.status === 'busy' ? 'it is on another job' : 'it is off duty');
    if (!dispatch.carriers(order.vehicleType).includes(courier.vehicle)) throw refuse(`a ${courier.vehicle} does not carry a ${order.vehicleType} order`);
    // Dispatch's own rule (issue #37): an operator who agrees otherwise with the courier changes its planned end first.
    if (!(await dispatch.mayTake(courier, [order]))) throw refuse(`its shift ends at ${courier.shiftEndsAt}, before it could pick the order up`);
    return courier;
  }

  /** Claims the chosen courier for the order (it leaves the geo index); CONFLICT when it was taken meanwhile. */
  async function claim(courier: Courier, order: Order): Promise<Courier> {
    const claimed = await store.couriers.setStatus({ id: courier.id, status: 'busy', from: ['available'], job: { kind: 'order', id: order.id }, updatedAt: now() });
    if (!claimed) throw new AppError('CONFLICT', `Courier ${courier.id} was just given another job`);
    await geoIndex.remove({ courierId: claimed.id, mode: claimed.mode, vehicle: claimed.vehicle });
    return claimed;
  }

  /** The claimed courier on the `new` order; the claim is given back when the order moved meanwhile. */
  async function assignClaimed(order: Order, courier: Courier, actor: Actor): Promise<Order> {
    const assigned = await dispatch.assign(order, courier, actor);
    if (assigned) return assigned;
    await dispatch.releaseCourier({ courierId: courier.id, jobId: order.id });
    throw new AppError('INVALID_STATUS_TRANSITION', `Order ${order.id} changed meanwhile; read it again`);
  }

  /** The courier's job was this order: it is free again (not yet offered work). */
  async function freeCourierOf(order: Order): Promise<Courier | null> {
    if (!order.courierId) return null;
    return store.couriers.setStatus({ id: order.courierId, status: 'available', from: ['busy'], fromJobId: order.id, job: null, updatedAt: now() });
  }

  /** Gives a `new` order to the courier the operator chose. */
  async function assignOrder(options: { input: unknown; actor: Actor }): Promise<Order> {
    const input = parseInput(operatorAssignSchema, options.input);
    const order = await findOrder(input.orderId);
    if (order.status !== 'new') throw new AppError('INVALID_STATUS_TRANSITION', `Order is ${order.status}; only a new order can be assigned`);
    if (order.batchId) throw new AppError('CONFLICT', `Order ${order.id} waits in batch ${order.batchId}; it is dispatched with its batch`);
    const courier = await claim(await eligibleCourier(input.courierId, order), order);
    return assignClaimed(order, courier, options.actor);
  }

  /** An assigned order goes back to `new` and is dispatched again (never straight back to the courier it left). */
  async function releaseOrder(options: { input: unknown; actor: Actor }): Promise<Order> {
    const input = parseInput(operatorReleaseSchema, options.input);
    const order = await findOrder(input.orderId);
    const released = await transitions.transition({
      order, to: 'new', actor: options.actor, patch: { courierId: null, batchId: null }, reason: input.reason ?? ORDER_NOTES.operatorReleased,
    });
    const freed = await freeCourierOf(order);
    const redispatched = await dispatch.dispatchOrder({ order: released });
    if (freed) await dispatch.offerWork({ courier: freed, skipOrderId: order.id });
    return redispatched;
  }

  /** Release and assign in one operation, while the order is assigned: the chosen courier is claimed first. */
  async function reassignOrder(options: { input: unknown; actor: Actor }): Promise<Order> {
    const input = parseInput(operatorAssignSchema, options.input);
    const order = await findOrder(input.orderId);
    if (order.status !== 'assigned') throw new AppError('INVALID_STATUS_TRANSITION', `Order is ${order.status}; only an assigned order can be reassigned`);
    if (order.courierId === input.courierId) throw new AppError('CONFLICT', `Order ${order.id} is already with courier ${input.courierId}`);
    const courier = await claim(await eligibleCourier(input.courierId, order), order);
    let released: Order;
    try {
      released = await transitions.transition({ order, to: 'new', actor: options.actor, patch: { courierId: null, batchId: null }, reason: ORDER_NOTES.operatorReassigned });
    } catch (error) {
      await dispatch.releaseCourier({ courierId: courier.id, jobId: order.id });
      throw error;
    }
    const freed = await freeCourierOf(order);
    try {
      return await assignClaimed(released, courier, options.actor);
    } finally {
      if (freed) await dispatch.offerWork({ courier: freed, skipOrderId: order.id });
    }
  }

  /** Cancels on the merchant's behalf (a reason is required): the merchant's cancel, rules and webhooks included. */
  async function cancelOrder(options: { input: unknown; actor: Actor }): Promise<Order> {
    const input = parseInput(operatorCancelSchema, options.input);
    return orders.cancelOnBehalf({ order: await findOrder(input.orderId), actor: options.actor, reason: input.reason });
  }

  const isLate = (order: Order) => isOrderLate(order, clock.now());

  /** The comunas a list may be filtered by, alphabetically. */
  const comunaNames = () => comunas.names();

  return { listOrders, comunaNames, getOrder, isLate, assignOrder, releaseOrder, reassignOrder, cancelOrder };
}
