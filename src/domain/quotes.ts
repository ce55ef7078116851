import { z } from 'zod';
import type { Clock } from '../ports/clock.js';
import type { Geocoder } from '../ports/geocoder.js';
import { AppError } from './errors.js';
import { locationInputSchema, resolveLocation, type LocationInput, type ResolvedLocation } from './locations.js';
import { prepTimeSchema } from './merchants.js';
import { priceRoute, type RoutePrice } from './pricing.js';
import type { Tariff } from './tariffs.js';
import type { Merchant, Mode } from './types.js';
import { parseInput } from './validation.js';

const weightSchema = z.number().min(0).max(100_000);

/** POST /shipping/quote, both documented forms in one schema (A: origin/total_weight_kg; B: total_weight, origin optional). */
export const quoteRequestSchema = z.strictObject({
  origin: locationInputSchema.optional(),
  destination: locationInputSchema,
  package_type: z.string().trim().max(50).optional(),
  total_weight_kg: weightSchema.optional(),
  total_weight: weightSchema.optional(),
  prep_time_mins: prepTimeSchema.optional(),
});

export interface Quote extends RoutePrice {
  isTest: boolean;
  origin: ResolvedLocation;
  destination: ResolvedLocation;
  packageType: string | null;
}

/** Prep time resolution: the request, then the merchant default, then 0. */
export function resolvePrepTime(requested: number | undefined, merchant: Merchant): number {
  return requested ?? merchant.settings.prepTimeMins ?? 0;
}

export type QuoteService = ReturnType<typeof createQuoteService>;

export function createQuoteService(deps: { geocoder: Geocoder; tariff: Tariff; clock: Clock }) {
  const { geocoder, tariff, clock } = deps;

  /** The pickup location: the one given, else the merchant profile address. */
  async function resolveOrigin(merchant: Merchant, origin: LocationInput | undefined): Promise<ResolvedLocation> {
    const input = origin ?? merchant.address;
    if (!input) {
      throw new AppError('VALIDATION_ERROR', 'origin is required: the merchant profile has no address', {
        fields: [{ field: 'origin', message: 'is required (no merchant address on file)' }],
      });
    }
    return resolveLocation({ geocoder, input, field: 'origin' });
  }

  /** Quotes a route between resolved or raw locations for a merchant; used by every quoting endpoint. */
  async function quoteRoute(options: {
    merchant: Merchant;
    mode: Mode;
    origin?: LocationInput;
    destination: LocationInput;
    weightKg?: number;
    prepTimeMins?: number;
    packageType?: string;
  }): Promise<Quote> {
    const [origin, destination] = await Promise.all([
      resolveOrigin(options.merchant, options.origin),
      resolveLocation({ geocoder, input: options.destination, field: 'destination' }),
    ]);
    const price = priceRoute({
      tariff,
      origin,
      destination,
      weightKg: options.weightKg ?? 0,
      prepTimeMins: resolvePrepTime(options.prepTimeMins, options.merchant),
      now: clock.now(),
    });
    return Object.assign(price, { isTest: options.mode === 'test', origin, destination, packageType: options.packageType ?? null });
  }

  async function quoteDelivery(options: { merchant: Merchant; mode: Mode; input: unknown }): Promise<Quote> {
    const input = parseInput(quoteRequestSchema, options.input);
    return quoteRoute({
      merchant: options.merchant,
      mode: options.mode,
      ...(input.origin !== undefined && { origin: input.origin }),
      destination: input.destination,
      weightKg: input.total_weight_kg ?? input.total_weight ?? 0,
      ...(input.prep_time_mins !== undefined && { prepTimeMins: input.prep_time_mins }),
      ...(input.package_type !== undefined && { packageType: input.package_type }),
    });
  }

  return { quoteDelivery, quoteRoute, resolveOrigin };
}
