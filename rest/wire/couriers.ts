/** The REST wire form of the courier commands, mapped onto the domain's in one step each (also the OpenAPI bodies). */
import { z } from 'zod';
import {
  advanceOrderCommandSchema,
  releaseOrderCommandSchema,
  setDutyCommandSchema,
  type AdvanceOrderCommand,
  type ReleaseOrderCommand,
  type SetDutyCommand,
} from '../../src/domain/couriers.js';
import { parseInput } from '../../src/domain/validation.js';
import {
  confirmReturnCommandSchema,
  reportFailedAttemptCommandSchema,
  type ConfirmReturnCommand,
  type ReportFailedAttemptCommand,
} from '../../src/domain/orders/failed-attempts.js';
import { courierSignInCommandSchema, type CourierSignInCommand } from '../../src/domain/courier-sessions.js';
import { earningsQuerySchema, type EarningsQuery } from '../../src/domain/orders/tips.js';

/** GET /couriers/me/earnings: `from` and `to` as in the domain's query. */
export const earningsQueryString = earningsQuerySchema;

export function earningsQuery(query: unknown): EarningsQuery {
  return parseInput(earningsQueryString, query);
}

export const dutyBody = z.strictObject({
  on_duty: setDutyCommandSchema.shape.onDuty,
  shift_ends_at: setDutyCommandSchema.shape.shiftEndsAt.describe(
    'Going on duty: when the duty is planned to end (ISO 8601 with offset; in the future, at most 16 h ahead). Dispatch offers nothing whose pickup falls after it, and the courier goes off duty once it passes with nothing in hand. Absent or null: no planned end. Already on duty: changes it (null clears it). Not accepted with on_duty false.',
  ),
});

export function setDutyCommand(body: unknown): SetDutyCommand {
  const parsed = parseInput(dutyBody, body);
  return { onDuty: parsed.on_duty, ...(parsed.shift_ends_at !== undefined && { shiftEndsAt: parsed.shift_ends_at }) };
}

// Shared with the courier socket, which takes the same frames.
export { positionBody, reportPositionCommand } from '../../src/edge/position-wire.js';

/** Same field names on the wire as in the command. */
export const courierStatusBody = advanceOrderCommandSchema;
export const courierReleaseBody = releaseOrderCommandSchema;

export function advanceOrderCommand(body: unknown): AdvanceOrderCommand {
  return parseInput(courierStatusBody, body);
}

export function releaseOrderCommand(body: unknown): ReleaseOrderCommand {
  return parseInput(courierReleaseBody, body ?? {});
}

/** POST /couriers/sessions: the sign-in link's code. */
export const courierSignInBody = courierSignInCommandSchema;

export function courierSignInCommand(body: unknown): CourierSignInCommand {
  return parseInput(courierSignInBody, body);
}

const failed = reportFailedAttemptCommandSchema.shape;
/** POST /couriers/me/orders/{id}/failed-attempt. */
export const failedAttemptBody = z.strictObject({
  reason: failed.reason, note: failed.note, photo_proof_id: failed.photoProofId, coords: failed.coords,
  stop_id: failed.stopId.describe('A multi-stop order: the stop that failed, which must be the current one; default: the current one. 409 when another.'),
});

export function reportFailedAttemptCommand(body: unknown): ReportFailedAttemptCommand {
  const b = parseInput(failedAttemptBody, body);
  return {
    reason: b.reason, coords: b.coords,
    ...(b.note !== undefined && { note: b.note }),
    ...(b.photo_proof_id !== undefined && { photoProofId: b.photo_proof_id }),
    ...(b.stop_id !== undefined && { stopId: b.stop_id }),
  };
}

const ret = confirmReturnCommandSchema.shape;
/** POST /couriers/me/orders/{id}/return: the proof at the pickup, in the delivery's field names. */
export const returnBody = z.strictObject({
  coords: ret.coords, photo_url: ret.photoUrl, signature_url: ret.signatureUrl, photo_proof_id: ret.photoProofId, signature_proof_id: ret.signatureProofId,
  geofence_radius: ret.geofenceRadius, bypass: ret.bypass,
});

export function confirmReturnCommand(body: unknown): ConfirmReturnCommand {
  const b = parseInput(returnBody, body);
  return {
    coords: b.coords, geofenceRadius: b.geofence_radius, bypass: b.bypass,
    ...(b.photo_url !== undefined && { photoUrl: b.photo_url }),
    ...(b.signature_url !== undefined && { signatureUrl: b.signature_url }),
    ...(b.photo_proof_id !== undefined && { photoProofId: b.photo_proof_id }),
    ...(b.signature_proof_id !== undefined && { signatureProofId: b.signature_proof_id }),
  };
}
