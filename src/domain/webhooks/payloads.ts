import type { Batch, CodCollection, Courier, DeliveryProof, FailedAttempt, LatLng, Order, OrderStop, WebhookEventType } from '../types.js';
import { collectsCash } from '../orders/cod.js';
import { isStatusIn } from '../vocabulary.js';

/** Shape 1 (flat) reports a completed order as `delivered`, as the spec's variant does. */
const flatStatus = (status: Order['status']) => (status === 'completed' ? 'delivered' : status);

const VEHICLE_MODELS: Record<Courier['vehicle'], string> = { bike: 'Bicycle', motorcycle: 'Motorcycle', car: 'Car', van: 'Van' };

export interface PayloadContext {
  order: Order;
  courier: Courier | null;
  sequence: number;
  at: string;
  trackingUrl: string;
  courierImageUrl: string;
  location?: LatLng;
  /** A signed link to a hosted proof (issue #27); without it a hosted proof shows as ''. */
  proofUrl?: (proofId: string) => string;
  /** order.tip_added: the amount added (CLP); the total is the order's tip. */
  tipAdded?: number;
}

/** A status change's own details (proof, fee, attempt) belong to it, not to a position or a tip sent later. */
const aboutStatus = (c: PayloadContext) => !c.location && c.tipAdded === undefined;

/** order.tip_added adds this to either shape: what was added now and the order's tip since (CLP). */
const tipOf = (c: PayloadContext) => (c.tipAdded === undefined ? undefined : { tip: { amount: c.tipAdded, total: c.order.tip ?? 0, currency: 'CLP' } });

/** The delivery proof as every answer shows it (REST, webhooks): `geofence` says whether the position was checked. */
export function proofPayload(proof: DeliveryProof, proofUrl?: (proofId: string) => string) {
  return {
    driver_id: proof.driverId,
    coords: proof.coords,
    distance_m: proof.distanceM,
    radius_m: proof.radiusM,
    bypass: proof.bypass,
    geofence: proof.geofence,
    photo_url: proof.photoProofId && proofUrl ? proofUrl(proof.photoProofId) : proof.photoUrl,
    signature_url: proof.signatureProofId && proofUrl ? proofUrl(proof.signatureProofId) : proof.signatureUrl,
    delivered_at: proof.deliveredAt,
    // Only on an order that required the check, so earlier proofs keep their shape.
    ...(proof.idCheck && { id_check: { verified: true, min_age: proof.idCheck.minAge, document_last4: proof.idCheck.documentLast4, checked_at: proof.idCheck.checkedAt } }),
  };
}

/** Status changes to `completed` carry the proof. */
const proofOf = (c: PayloadContext) => (c.order.status === 'completed' && c.order.proof && aboutStatus(c) ? { proof: proofPayload(c.order.proof, c.proofUrl) } : undefined);

/** The status change to `cancelled` carries what cancelling cost (CLP; 0: free; test mode: computed, never charged). */
const feeOf = (c: PayloadContext) => (c.order.status === 'cancelled' && c.order.cancellation && aboutStatus(c) ? { cancellation_fee: c.order.cancellation.fee ?? 0 } : undefined);

/** A failed delivery attempt as every answer shows it (REST, webhooks); the photo as a signed link when hosted. */
export function failedAttemptPayload(a: FailedAttempt, proofUrl?: (proofId: string) => string) {
  return {
    reason: a.reason, note: a.note, photo_url: a.photoProofId && proofUrl ? proofUrl(a.photoProofId) : null, coords: a.coords, courier_id: a.courierId,
    at: a.at, outcome: a.outcome,
  };
}

/**
 * A multi-stop order's stop as every answer shows it (REST, GraphQL's fields, webhooks): where it is
 * in the route, its status and ETA, and its proof or failure — never a PIN.
 */
export function stopPayload(stop: OrderStop, proofUrl?: (proofId: string) => string) {
  return {
    id: stop.id,
    index: stop.index,
    given_index: stop.givenIndex,
    status: stop.status,
    eta: stop.eta,
    arrived_at: stop.arrivedAt,
    proof: stop.proof ? proofPayload(stop.proof, proofUrl) : null,
    failure: stop.failure
      ? { reason: stop.failure.reason, note: stop.failure.note, photo_url: stop.failure.photoProofId && proofUrl ? proofUrl(stop.failure.photoProofId) : null, at: stop.failure.at, courier_id: stop.failure.courierId }
      : null,
  };
}

/**
 * order.stop_status_changed adds this to either shape: the stop that moved and, when delivered,
 * whether its PIN was checked (a stop with a PIN is delivered only with it).
 */
export function stopEventPayload(order: Order, stop: OrderStop, proofUrl?: (proofId: string) => string) {
  return { stop: Object.assign(stopPayload(stop, proofUrl), { pin_verified: stop.status === 'delivered' && !!order.stopPins?.[stop.id] }), stops_total: order.stops?.length ?? 0 };
}

/** The stops whose status differs between two versions of an order (a stop move). */
export function changedStops(before: Order, after: Order): OrderStop[] {
  const was = new Map((before.stops ?? []).map((s) => [s.id, s.status]));
  return (after.stops ?? []).filter((s) => was.get(s.id) !== s.status);
}

/**
 * A failed attempt's changes (`delivery_failed`, then `returning` or `disposed`) carry the attempt and
 * the count so far; `returning` also the return fee (CLP); `returned` the proof at the pickup.
 */
function attemptOf(c: PayloadContext) {
  const last = c.order.failedAttempts?.at(-1);
  if (!aboutStatus(c)) return undefined;
  if (c.order.status === 'returned' && c.order.returnLeg?.proof) return { return_proof: proofPayload(c.order.returnLeg.proof, c.proofUrl) };
  if (!last || !isStatusIn('afterAttempt', c.order.status)) return undefined;
  return {
    failed_attempt: failedAttemptPayload(last, c.proofUrl), attempts: c.order.failedAttempts!.length,
    ...(c.order.status === 'returning' && { return_fee: c.order.returnLeg?.fee ?? 0 }),
  };
}

/** The cash a courier collected at the door, as every answer shows it (REST, webhooks). */
export function codPayload(c: CodCollection) {
  return { expected: c.expected, collected: c.collected, mismatch: c.mismatch, collected_at: c.collectedAt };
}

/** A cash-on-delivery order's status changes carry its cod_amount (null: unknown); from the delivery on, what was collected (a mismatch flagged). */
function codOf(c: PayloadContext) {
  if (!collectsCash(c.order) || c.location) return undefined;
  return { cod_amount: c.order.codAmount ?? null, ...(c.order.codCollection && { cod: codPayload(c.order.codCollection) }) };
}

/** Spec shape 2: event, booking_id, status, timestamp, driver{name, phone} — plus the per-order sequence. */
export function eventShape(eventType: WebhookEventType, c: PayloadContext) {
  return {
    event: eventType,
    booking_id: c.order.id,
    status: c.order.status,
    timestamp: c.at,
    driver: c.courier ? { name: c.courier.name, phone: c.courier.phone } : null,
    sequence: c.sequence,
    ...(c.location && { location: c.location }),
    ...proofOf(c),
    ...feeOf(c),
    ...attemptOf(c),
    ...codOf(c),
    ...tipOf(c),
  };
}

/** Spec shape 1 (flat fields) — plus the per-order sequence and the event time. */
export function flatShape(c: PayloadContext) {
  return {
    order_id: Number(c.order.orderNumber),
    ecommerce_order_id: c.order.ecommerceOrderId ?? '',
    booking_id: c.order.id,
    reference: c.order.referenceId ?? c.order.trackingNumber,
    status: flatStatus(c.order.status),
    driver_name: c.courier?.name ?? '',
    driver_phone: c.courier?.phone ?? '',
    driver_image: c.courier ? c.courierImageUrl : '',
    vehicle_model: c.courier ? VEHICLE_MODELS[c.courier.vehicle] : '',
    vehicle_number: c.courier?.plate ?? '',
    tracking_url: c.trackingUrl,
    sequence: c.sequence,
    timestamp: c.at,
    ...(c.location && { lat: c.location.lat, lng: c.location.lng }),
    ...proofOf(c),
    ...feeOf(c),
    ...attemptOf(c),
    ...codOf(c),
    ...tipOf(c),
  };
}

export function batchCreatedPayload(batch: Batch, at: string) {
  return {
    event: 'batch.created' as const,
    batch_id: batch.id,
    order_ids: batch.orderIds,
    vehicle_type: batch.vehicleType,
    geohash_zone: batch.geohashZone,
    timestamp: at,
  };
}

/** Why the live ETA moved: `pickup_delayed` while the parcel is not picked up yet and the estimate grew; `courier_position` otherwise. */
export type EtaChangeReason = 'courier_position' | 'pickup_delayed';
export const ETA_CHANGE_REASONS = ['courier_position', 'pickup_delayed'] as const;

export interface EtaChange {
  previous: string;
  current: string;
  reason: EtaChangeReason;
}

/** order.eta_changed adds this to either shape: the estimate last announced, the new one, and why. */
export function etaChangePayload(change: EtaChange) {
  return { previous: change.previous, current: change.current, reason: change.reason };
}
