/** The REST wire form of the courier commands, mapped onto the domain's in one step each (also the OpenAPI bodies). */
import { z } from 'zod';
import {
  advanceOrderCommandSchema,
  releaseOrderCommandSchema,
  reportPositionCommandSchema,
  setDutyCommandSchema,
  type AdvanceOrderCommand,
  type ReleaseOrderCommand,
  type ReportPositionCommand,
  type SetDutyCommand,
} from '../../src/domain/couriers.js';
import { latLngSchema } from '../../src/domain/locations.js';
import { parseInput } from '../../src/domain/validation.js';

export const dutyBody = z.strictObject({ on_duty: setDutyCommandSchema.shape.onDuty });

export function setDutyCommand(body: unknown): SetDutyCommand {
  return { onDuty: parseInput(dutyBody, body).on_duty };
}

const position = reportPositionCommandSchema.shape;

export const positionBody = latLngSchema.extend({ heading: position.heading, speed_kmh: position.speedKmh, accuracy_m: position.accuracyM });

export function reportPositionCommand(body: unknown): ReportPositionCommand {
  const b = parseInput(positionBody, body);
  return { lat: b.lat, lng: b.lng, heading: b.heading, speedKmh: b.speed_kmh, accuracyM: b.accuracy_m };
}

/** Same field names on the wire as in the command. */
export const courierStatusBody = advanceOrderCommandSchema;
export const courierReleaseBody = releaseOrderCommandSchema;

export function advanceOrderCommand(body: unknown): AdvanceOrderCommand {
  return parseInput(courierStatusBody, body);
}

export function releaseOrderCommand(body: unknown): ReleaseOrderCommand {
  return parseInput(courierReleaseBody, body ?? {});
}
