import type { ProofService } from '../proofs/service.js';
import type { Clock } from '../../ports/clock.js';
import type { IdSource } from '../../ports/ids.js';
import type { Store } from '../../ports/store.js';
import { AppError, GeofenceError } from '../errors.js';
import { distanceMeters, isPreciseStop } from '../geo.js';
import type { DeliveryPin, DeliveryProof, GeofenceOutcome, Order, OrderStop, Stop } from '../types.js';
import { isStopOpen, ORDER_STATUS_SETS } from '../vocabulary.js';
import { assertCurrentStop } from './stops.js';
import { assertOnTheRoad, settleStop } from './stop-moves.js';
import type { MerchantPrincipal } from '../auth.js';
import type { ConfirmDeliveryCommand } from './schemas.js';
import { newDeliveryPin, type OrderService } from './service.js';
import { verifyIdCheck } from './id-check.js';
import { codCollectedEntry, collectCod, type CodConfirmLimits } from './cod.js';
import { assertReachable } from './state-machine.js';
import type { Actor, OrderTransitions } from './transitions.js';
import { assertPermitted } from '../members/roles.js';
import { merchantScope, type IdempotencyService, type IdempotentCall } from '../idempotency.js';

import { ORDER_NOTES } from './notes.js';

export type DeliveryService = ReturnType<typeof createDeliveryService>;

/** The operations of the merchant's delivery commands' idempotency records. */
export const CONFIRM_DELIVERY = 'orders.deliver';
export const RESET_DELIVERY_PIN = 'orders.resetDeliveryPin';

/** Wrong delivery-PIN tries before the order locks (until the merchant resets the PIN). */
export const DELIVERY_PIN_MAX_ATTEMPTS = 5;

const GEOFENCE_REASONS: Record<GeofenceOutcome, string | null> = {
  passed: null,
  bypassed: ORDER_NOTES.geofenceBypassed,
  unverified: ORDER_NOTES.geofenceUnverified,
};

/**
 * The radius is checked only where the drop-off is precise (coordinates or a house-number match):
 * a comuna's point says nothing about the door, so there the delivery is accepted as unverified.
 */
function geofenceOutcome(options: { dropoff: Stop; bypass: boolean }): GeofenceOutcome {
  if (options.bypass) return 'bypassed';
  return isPreciseStop(options.dropoff) ? 'passed' : 'unverified';
}

/**
 * Proof of delivery: the assigned courier, at the drop-off (great-circle distance from `coords`
 * within `geofence_radius` metres where the drop-off is precise, unless `bypass`; the outcome is
 * recorded), with photo and signature.
 * From `picked_up` the arrival is recorded first, then the completion.
 */
/** Each of photo and signature is given once: an external URL or an uploaded proof (issue #27). */
function assertEvidence(input: ConfirmDeliveryCommand): void {
  const missing: Array<{ field: string; message: string }> = [];
  for (const [url, id, name] of [[input.photoUrl, input.photoProofId, 'photo'], [input.signatureUrl, input.signatureProofId, 'signature']] as const) {
    if ((url === undefined) === (id === undefined)) missing.push({ field: `${name}Url`, message: `exactly one of ${name}Url and ${name}ProofId is required` });
  }
  if (missing.length > 0) {
    throw new AppError('VALIDATION_ERROR', `Give each of photo and signature either as a URL or as an uploaded proof id (one of the two): ${missing.map((m) => m.field).join(', ')}`, { fields: missing });
  }
}

export function createDeliveryService(deps: {
  orders: OrderService;
  transitions: OrderTransitions;
  clock: Clock;
  ids: IdSource;
  store: Store;
  /** Hosted proofs (issue #27): the proof ids a delivery names must be its order's. */
  proofs?: Pick<ProofService, 'assertDeliveryProofs'>;
  /** When a cash-on-delivery claim waits for an operator (issue #39); default 1.5× or +50,000 CLP. */
  codLimits?: CodConfirmLimits;
  idempotency: IdempotencyService;
}) {
  const { orders, transitions, clock, ids, store, idempotency } = deps;

  /**
   * An order with a delivery PIN is delivered only with it. Each try is counted in the store,
   * atomically: after DELIVERY_PIN_MAX_ATTEMPTS wrong ones the order is locked (409) and the PIN is
   * no longer compared, until the merchant resets it.
   */
  async function checkDeliveryPin(order: Order, pin: string | undefined, stop: OrderStop | null): Promise<void> {
    const held: DeliveryPin | null | undefined = stop ? order.stopPins?.[stop.id] : order.deliveryPin;
    if (!held) return;
    if (held.failedAttempts >= DELIVERY_PIN_MAX_ATTEMPTS) throw pinLocked();
    if (pin === undefined) {
      throw new AppError('DELIVERY_PIN_INVALID', 'This order needs the delivery PIN the recipient holds: send pin', { fields: [{ field: 'pin', message: 'is required for this order' }] });
    }
    const attempt = await store.orders.tryDeliveryPin({ id: order.id, pin, maxAttempts: DELIVERY_PIN_MAX_ATTEMPTS, ...(stop && { stopId: stop.id }) });
    if (!attempt || attempt.outcome === 'ok') return;
    if (attempt.outcome === 'locked') throw pinLocked();
    const left = Math.max(0, DELIVERY_PIN_MAX_ATTEMPTS - attempt.failedAttempts);
    throw new AppError('DELIVERY_PIN_INVALID', `Wrong delivery PIN; ${left} ${left === 1 ? 'try' : 'tries'} left before the order locks`, {
      details: { attempts_left: left },
    });
  }

  const pinLocked = () =>
    new AppError('DELIVERY_PIN_LOCKED', `${DELIVERY_PIN_MAX_ATTEMPTS} wrong delivery PINs: the delivery is locked until the merchant resets the PIN`);

  /** The delivery of an order already found (by the merchant's ref or among the courier's own orders). */
  async function deliverOrder(options: { order: Order; input: ConfirmDeliveryCommand; actor: Actor; courierId?: string }): Promise<{ order: Order; proof: DeliveryProof }> {
    const { order, input } = options;
    if (options.courierId !== undefined && input.driverId !== options.courierId) {
      throw new AppError('FORBIDDEN', 'driver_id must be your own courier id');
    }
    if (order.courierId !== input.driverId) {
      throw new AppError('FORBIDDEN', 'driver_id is not the courier assigned to this order');
    }
    assertEvidence(input);
    // The state comes before the geofence: a delivery the table forbids is refused whatever the position.
    // A multi-stop order delivers its current stop (the one named, if any).
    const stop = order.stops ? (assertOnTheRoad(order), assertCurrentStop(order, input.stopId)) : null;
    if (!stop) assertReachable(order.status, 'completed');
    if (!stop && input.stopId !== undefined) throw new AppError('VALIDATION_ERROR', 'stopId is only accepted on a multi-stop order', { fields: [{ field: 'stopId', message: 'this order has no stops' }] });
    const dropoff = stop ? stop.location : order.dropoff;
    const distanceM = Math.round(distanceMeters(input.coords, dropoff) * 10) / 10;
    const geofence = geofenceOutcome({ dropoff, bypass: input.bypass });
    if (geofence === 'passed' && distanceM > input.geofenceRadius) {
      throw new GeofenceError({ distanceM, radiusM: input.geofenceRadius });
    }
    await deps.proofs?.assertDeliveryProofs({ order, photoProofId: input.photoProofId, signatureProofId: input.signatureProofId });
    const idCheck = verifyIdCheck({ order, input: input.idCheck, courierId: input.driverId, at: clock.now() });
    const codCollection = collectCod({ order, collected: input.codCollected, courierId: input.driverId, at: clock.now() });
    // Last: a try is only counted for a delivery that would otherwise be accepted.
    await checkDeliveryPin(order, input.pin, stop);
    const proof: DeliveryProof = {
      driverId: input.driverId, coords: input.coords, distanceM, radiusM: input.geofenceRadius, bypass: input.bypass, geofence,
      photoUrl: input.photoProofId !== undefined ? '' : (input.photoUrl ?? ''), signatureUrl: input.signatureProofId !== undefined ? '' : (input.signatureUrl ?? ''),
      ...(input.photoProofId !== undefined && { photoProofId: input.photoProofId }),
      ...(input.signatureProofId !== undefined && { signatureProofId: input.signatureProofId }),
      deliveredAt: clock.now().toISOString(),
      ...(idCheck && { idCheck }),
    };
    if (stop) {
      const settled = await settleStop({
        transitions, order, stopId: stop.id, to: 'delivered', fields: { proof }, actor: options.actor, location: input.coords, reason: GEOFENCE_REASONS[geofence], at: proof.deliveredAt,
      });
      if (settled.completed) await orders.afterOrderEnded(settled.order);
      return { order: settled.order, proof };
    }
    const completed = await transitions.transition({
      order, to: 'completed', actor: options.actor, location: input.coords, reason: GEOFENCE_REASONS[geofence],
      patch: { proof, ...(codCollection && { codCollection }) },
      ...(codCollection && { ledger: codCollectedEntry({ order, collection: codCollection, ids, ...(deps.codLimits && { limits: deps.codLimits }) }) }),
    });
    await orders.afterOrderEnded(completed);
    return { order: completed, proof };
  }

  /** The merchant confirms the delivery of one of its orders, by any of its references. */
  async function confirmDelivery(options: { principal: MerchantPrincipal; ref: string; input: ConfirmDeliveryCommand } & IdempotentCall) {
    const { principal, ref, input } = options;
    return idempotency.runCommand(options, { scope: merchantScope(principal, CONFIRM_DELIVERY), request: { ref, input } }, async () => {
      assertPermitted(principal, 'dispatch');
      const order = await orders.getOrder({ principal, ref });
      return deliverOrder({ order, input, actor: { kind: 'merchant', id: principal.merchant.id } });
    });
  }

  /**
   * The merchant issues a new delivery PIN (the tries start again), for an order that has one and is
   * not over yet; the old PIN stops working at once.
   */
  async function resetDeliveryPin(options: { principal: MerchantPrincipal; ref: string } & IdempotentCall): Promise<Order> {
    const { principal, ref } = options;
    return idempotency.runCommand(options, { scope: merchantScope(principal, RESET_DELIVERY_PIN), request: { ref } }, () => issueDeliveryPin({ principal, ref }));
  }

  async function issueDeliveryPin(options: { principal: MerchantPrincipal; ref: string }): Promise<Order> {
    assertPermitted(options.principal, 'dispatch');
    const order = await orders.getOrder(options);
    if (!order.deliveryPin && !order.stopPins) throw new AppError('CONFLICT', 'This order was created without a delivery PIN (delivery_pin: true)');
    const issuedAt = clock.now().toISOString();
    // A multi-stop order: every stop still open gets a new PIN (a served stop's PIN no longer matters).
    const open = new Set((order.stops ?? []).filter((s) => isStopOpen(s.status)).map((s) => s.id));
    const patch = order.stopPins
      ? { stopPins: Object.fromEntries(Object.entries(order.stopPins).map(([id, pin]) => [id, open.has(id) ? newDeliveryPin(issuedAt) : pin])) }
      : { deliveryPin: newDeliveryPin(issuedAt) };
    const updated = await store.orders.apply({ id: order.id, from: [...ORDER_STATUS_SETS.undelivered], patch });
    if (!updated) throw new AppError('INVALID_STATUS_TRANSITION', `Order is ${order.status}: its delivery PIN can no longer change`);
    return updated;
  }

  return { confirmDelivery, deliverOrder, resetDeliveryPin };
}
