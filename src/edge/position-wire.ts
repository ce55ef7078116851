import { reportPositionCommandSchema, type ReportPositionCommand } from '../domain/couriers.js';
import { latLngSchema } from '../domain/locations.js';
import { parseInput } from '../domain/validation.js';

const position = reportPositionCommandSchema.shape;

/** A courier's position report on the wire (HTTP body and courier socket frame alike). */
export const positionBody = latLngSchema.extend({ heading: position.heading, speed_kmh: position.speedKmh, accuracy_m: position.accuracyM, recorded_at: position.recordedAt });

export function reportPositionCommand(body: unknown): ReportPositionCommand {
  const b = parseInput(positionBody, body);
  return { lat: b.lat, lng: b.lng, heading: b.heading, speedKmh: b.speed_kmh, accuracyM: b.accuracy_m, recordedAt: b.recorded_at };
}
