/** The REST wire form of a quote request, mapped onto the domain's command in one step (also the OpenAPI body). */
import { z } from 'zod';
import { quoteCommandSchema, type QuoteCommand } from '../../src/domain/quotes.js';
import { parseInput } from '../../src/domain/validation.js';

const quote = quoteCommandSchema.shape;

/** POST /shipping/quote, both documented forms in one schema (A: origin/total_weight_kg; B: total_weight, origin optional). */
export const quoteRequestBody = z.strictObject({
  origin: quote.origin,
  destination: quote.destination,
  package_type: quote.packageType,
  total_weight_kg: quote.totalWeightKg,
  total_weight: quote.totalWeightKg,
  prep_time_mins: quote.prepTimeMins,
  pickup_after: quote.pickupAfter,
  deliver_before: quote.deliverBefore,
});

export function quoteCommand(body: unknown): QuoteCommand {
  const b = parseInput(quoteRequestBody, body);
  return {
    origin: b.origin, destination: b.destination, packageType: b.package_type,
    totalWeightKg: b.total_weight_kg ?? b.total_weight, prepTimeMins: b.prep_time_mins,
    pickupAfter: b.pickup_after, deliverBefore: b.deliver_before,
  };
}

/** Domain field names of quote errors (the schedule) → the REST wire's. */
export const QUOTE_FIELD_NAMES: Record<string, string> = { pickupAfter: 'pickup_after', deliverBefore: 'deliver_before' };
