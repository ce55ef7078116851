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
import { courierSignInCommandSchema, type CourierSignInCommand } from '../../src/domain/courier-sessions.js';

export const dutyBody = z.strictObject({ on_duty: setDutyCommandSchema.shape.onDuty });

export function setDutyCommand(body: unknown): SetDutyCommand {
  return { onDuty: parseInput(dutyBody, body).on_duty };
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
