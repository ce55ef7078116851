/** The REST wire form of a quote request, mapped onto the domain's command in one step (also the OpenAPI body). */
import { z } from 'zod';
import { quoteCommandSchema, type QuoteCommand } from '../../src/domain/quotes.js';
import { parseInput } from '../../src/domain/validation.js';
import { dimensionsBody, dimensionsOf } from './orders.js';

const quote = quoteCommandSchema.shape;

/** Two weights agree when they are the same to the gram (equal once rounded to 0.001 kg). */
const sameToTheGram = (a: number, b: number) => Math.round(a * 1000) === Math.round(b * 1000);

/**
 * POST /shipping/quote, both documented forms in one schema (A: origin/total_weight_kg; B:
 * total_weight, origin optional; documented as `oneOf` in rest/openapi/request-forms.ts). Both
 * weight fields are refused unless they agree: neither silently wins.
 */
export const quoteRequestBody = z
  .strictObject({
    origin: quote.origin,
    destination: quote.destination,
    package_type: quote.packageType,
    total_weight_kg: quote.totalWeightKg,
    total_weight: quote.totalWeightKg,
    dimensions: dimensionsBody.optional(),
    prep_time_mins: quote.prepTimeMins,
    pickup_after: quote.pickupAfter,
    deliver_before: quote.deliverBefore,
    stops: quote.stops.describe('A multi-stop quote: 1–10 drop-off addresses (as `destination` takes them), priced along the route as the order with these `stops` is.'),
    route: quote.route,
  })
  .superRefine((v, ctx) => {
    if ((v.destination === undefined) === (v.stops === undefined)) ctx.addIssue({ code: 'custom', path: ['destination'], message: 'give either destination or stops (exactly one)' });
    if (v.route !== undefined && v.stops === undefined) ctx.addIssue({ code: 'custom', path: ['route'], message: 'is only accepted with stops' });
    if (v.total_weight_kg === undefined || v.total_weight === undefined || sameToTheGram(v.total_weight_kg, v.total_weight)) return;
    const message = 'total_weight_kg (Form A) and total_weight (Form B) disagree: send one weight';
    for (const field of ['total_weight_kg', 'total_weight']) ctx.addIssue({ code: 'custom', path: [field], message });
  });

export function quoteCommand(body: unknown): QuoteCommand {
  const b = parseInput(quoteRequestBody, body);
  return {
    origin: b.origin, destination: b.destination, packageType: b.package_type,
    totalWeightKg: b.total_weight_kg ?? b.total_weight, dimensions: dimensionsOf(b.dimensions), prepTimeMins: b.prep_time_mins,
    pickupAfter: b.pickup_after, deliverBefore: b.deliver_before,
    ...(b.stops !== undefined && { stops: b.stops }), ...(b.route !== undefined && { route: b.route }),
  };
}

/** Domain field names of quote errors (the schedule) → the REST wire's. */
export const QUOTE_FIELD_NAMES: Record<string, string> = { pickupAfter: 'pickup_after', deliverBefore: 'deliver_before' };
