import { z } from 'zod';
import type { Clock } from '../../ports/clock.js';
import type { IdSource } from '../../ports/ids.js';
import { AppError, GeofenceError } from '../errors.js';
import { distanceMeters, isPreciseStop } from '../geo.js';
import { latLngSchema } from '../locations.js';
import type { ProofService } from '../proofs/service.js';
import type { Tariff } from '../tariffs.js';
import { FAILED_ATTEMPT_REASONS, type DeliveryProof, type FailedAttempt, type FailedAttemptPolicy, type LedgerEntry, type Order } from '../types.js';
import type { OrderService } from './service.js';
import { assertReachable } from './state-machine.js';
import type { Actor, OrderTransitions } from './transitions.js';
import { assertCurrentStop, stopIdSchema } from './stops.js';
import { assertOnTheRoad, settleStop } from './stop-moves.js';

/** The policy of orders created without one. */
export const DEFAULT_FAILED_ATTEMPT_POLICY: FailedAttemptPolicy = 'return';
/** A `retry` order is tried this many times at most: the failed attempt that reaches it starts the return leg. */
export const MAX_DELIVERY_ATTEMPTS = 3;

export const reportFailedAttemptCommandSchema = z.strictObject({
  reason: z.enum(FAILED_ATTEMPT_REASONS),
  note: z.string().trim().min(1).max(500).optional(),
  /** A photo uploaded for the order (…/proof?kind=photo): the door, the address, the refusal. */
  photoProofId: z.string().trim().min(1).max(64).optional(),
  coords: latLngSchema,
  /** A multi-stop order: the stop that failed, which must be the current one (default: the current one). */
  stopId: stopIdSchema.optional(),
});
export type ReportFailedAttemptCommand = z.output<typeof reportFailedAttemptCommandSchema>;

const evidenceUrl = z.url({ protocol: /^https?$/ }).max(2000);

/** Proof of the return at the pickup: the same evidence as a delivery (each of photo and signature once), geofenced on the pickup. */
export const confirmReturnCommandSchema = z.strictObject({
  coords: latLngSchema,
  photoUrl: evidenceUrl.optional(),
  signatureUrl: evidenceUrl.optional(),
  photoProofId: z.string().trim().min(1).max(64).optional(),
  signatureProofId: z.string().trim().min(1).max(64).optional(),
  geofenceRadius: z.number().positive().max(5000).default(20),
  bypass: z.boolean().default(false),
});
export type ConfirmReturnCommand = z.output<typeof confirmReturnCommandSchema>;

/** Where the policy sends an order after its `attempts`-th failed attempt. */
export function outcomeOf(options: { policy: FailedAttemptPolicy; attempts: number }): FailedAttempt['outcome'] {
  if (options.policy === 'dispose') return 'disposed';
  return options.policy === 'retry' && options.attempts < MAX_DELIVERY_ATTEMPTS ? 'picked_up' : 'returning';
}

export type FailedAttemptService = ReturnType<typeof createFailedAttemptService>;

/** Failed delivery attempts and the return leg to the pickup (issue #30). */
export function createFailedAttemptService(deps: {
  orders: Pick<OrderService, 'afterOrderEnded'>;
  transitions: OrderTransitions;
  clock: Clock;
  ids: IdSource;
  tariff: Tariff;
  proofs?: Pick<ProofService, 'assertDeliveryProofs'>;
}) {
  const { transitions, clock, ids, tariff } = deps;

  /** The return fee, never more than the order's price; charged (live only) when the return leg starts. */
  function returnCharge(order: Order): { fee: number; ledger: LedgerEntry | null } {
    const fee = Math.min(tariff.return_fee, order.price);
    const ledger = order.mode === 'live' && fee > 0
      ? { id: ids.next('led'), merchantId: order.merchantId, mode: order.mode, orderId: order.id, kind: 'charge' as const, amount: fee, at: clock.now().toISOString() }
      : null;
    return { fee, ledger };
  }

  /**
   * The courier could not deliver: the attempt is recorded (`delivery_failed`, with its evidence),
   * then the order's policy moves it on at once: another try, the return leg, or disposal.
   */
  async function reportFailedAttempt(options: { order: Order; courierId: string; input: ReportFailedAttemptCommand }): Promise<Order> {
    const { order, input } = options;
    if (order.stops) return failStop(options);
    const recorded = order.failedAttempts?.at(-1);
    // A report cut off between its two moves is finished by the next one, with the outcome recorded then.
    if (order.status === 'delivery_failed' && recorded) return applyPolicy({ failed: order, to: recorded.outcome, courierId: options.courierId, coords: input.coords });
    assertReachable(order.status, 'delivery_failed');
    if (input.photoProofId !== undefined) await deps.proofs?.assertDeliveryProofs({ order, photoProofId: input.photoProofId });
    const actor: Actor = { kind: 'courier', id: options.courierId };
    const previous = order.failedAttempts ?? [];
    const to = outcomeOf({ policy: order.failedAttemptPolicy ?? DEFAULT_FAILED_ATTEMPT_POLICY, attempts: previous.length + 1 });
    const attempt: FailedAttempt = {
      reason: input.reason, note: input.note ?? null, photoProofId: input.photoProofId ?? null, coords: input.coords,
      courierId: options.courierId, at: clock.now().toISOString(), outcome: to,
    };
    const failed = await transitions.transition({
      order, to: 'delivery_failed', actor, location: input.coords, reason: input.reason, patch: { failedAttempts: [...previous, attempt] },
    });
    return applyPolicy({ failed, to, courierId: options.courierId, coords: input.coords });
  }

  /**
   * A multi-stop order's current stop could not be served: the stop is `failed` with the reason and
   * the courier goes on to the next one (no policy, no return leg: the other stops' parcels are still aboard).
   */
  async function failStop(options: { order: Order; courierId: string; input: ReportFailedAttemptCommand }): Promise<Order> {
    const { order, input } = options;
    assertOnTheRoad(order);
    const stop = assertCurrentStop(order, input.stopId);
    if (input.photoProofId !== undefined) await deps.proofs?.assertDeliveryProofs({ order, photoProofId: input.photoProofId });
    const at = clock.now().toISOString();
    const failure = { reason: input.reason, note: input.note ?? null, photoProofId: input.photoProofId ?? null, at, courierId: options.courierId };
    const settled = await settleStop({
      transitions, order, stopId: stop.id, to: 'failed', fields: { failure }, actor: { kind: 'courier', id: options.courierId }, location: input.coords, reason: input.reason, at,
    });
    if (settled.completed) await deps.orders.afterOrderEnded(settled.order);
    return settled.order;
  }

  /** The policy's move out of `delivery_failed`; the return leg starts with its fee. */
  async function applyPolicy(options: { failed: Order; to: FailedAttempt['outcome']; courierId: string; coords: ReportFailedAttemptCommand['coords'] }): Promise<Order> {
    const { failed, to } = options;
    const charge = to === 'returning' ? returnCharge(failed) : null;
    // No note on the policy's move: the attempt's `outcome` says it, and history notes need console translations (ORDER_NOTES).
    const moved = await transitions.transition({
      order: failed, to, actor: { kind: 'courier', id: options.courierId }, location: { lat: options.coords.lat, lng: options.coords.lng },
      ...(charge && { patch: { returnLeg: { fee: charge.fee, startedAt: clock.now().toISOString(), proof: null } }, ledger: charge.ledger }),
    });
    if (to === 'disposed') await deps.orders.afterOrderEnded(moved);
    return moved;
  }

  /** The parcel is back at the pickup: proven like a delivery (photo and signature, geofenced on the pickup where it is precise). */
  async function confirmReturn(options: { order: Order; courierId: string; input: ConfirmReturnCommand }): Promise<Order> {
    const { order, input } = options;
    for (const [url, id, name] of [[input.photoUrl, input.photoProofId, 'photo'], [input.signatureUrl, input.signatureProofId, 'signature']] as const) {
      if ((url === undefined) === (id === undefined)) {
        throw new AppError('VALIDATION_ERROR', `Give ${name} either as a URL or as an uploaded proof id (one of the two)`, { fields: [{ field: `${name}Url`, message: `exactly one of ${name}Url and ${name}ProofId is required` }] });
      }
    }
    assertReachable(order.status, 'returned');
    const distanceM = Math.round(distanceMeters(input.coords, order.pickup) * 10) / 10;
    const geofence = input.bypass ? 'bypassed' : isPreciseStop(order.pickup) ? 'passed' : 'unverified';
    if (geofence === 'passed' && distanceM > input.geofenceRadius) throw new GeofenceError({ distanceM, radiusM: input.geofenceRadius });
    await deps.proofs?.assertDeliveryProofs({ order, photoProofId: input.photoProofId, signatureProofId: input.signatureProofId });
    const proof: DeliveryProof = {
      driverId: options.courierId, coords: input.coords, distanceM, radiusM: input.geofenceRadius, bypass: input.bypass, geofence,
      photoUrl: input.photoUrl ?? '', signatureUrl: input.signatureUrl ?? '',
      ...(input.photoProofId !== undefined && { photoProofId: input.photoProofId }),
      ...(input.signatureProofId !== undefined && { signatureProofId: input.signatureProofId }),
      deliveredAt: clock.now().toISOString(),
    };
    const leg = order.returnLeg ?? { fee: 0, startedAt: proof.deliveredAt, proof: null };
    const returned = await transitions.transition({
      order, to: 'returned', actor: { kind: 'courier', id: options.courierId }, location: input.coords, patch: { returnLeg: Object.assign({}, leg, { proof }) },
    });
    await deps.orders.afterOrderEnded(returned);
    return returned;
  }

  return { reportFailedAttempt, confirmReturn };
}
