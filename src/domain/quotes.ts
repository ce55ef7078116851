import { z } from 'zod';
import type { Clock } from '../ports/clock.js';
import type { Geocoder } from '../ports/geocoder.js';
import { AppError } from './errors.js';
import { locationInputSchema, minRoadMetres, resolveLocation, type LocationInput, type ResolvedLocation } from './locations.js';
import { prepTimeSchema } from './merchants.js';
import { priceRoute, type RoutePrice } from './pricing.js';
import type { Tariff } from './tariffs.js';
import type { Merchant, Mode } from './types.js';

/** Quote a delivery, in the domain's terms (REST maps its body onto it in rest/wire/quotes.ts). */
export const quoteCommandSchema = z.strictObject({
  /** Default: the merchant profile address. */
  origin: locationInputSchema.optional(),
  destination: locationInputSchema,
  packageType: z.string().trim().max(50).optional(),
  totalWeightKg: z.number().min(0).max(100_000).optional(),
  prepTimeMins: prepTimeSchema.optional(),
});
export type QuoteCommand = z.output<typeof quoteCommandSchema>;

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

  /**
   * The pickup location: the one given, else the merchant profile address. `field` names it in
   * errors as the caller's request does (`origin` in a quote, `pickup` in an order).
   */
  async function resolveOrigin(merchant: Merchant, origin: LocationInput | undefined, field = 'origin'): Promise<ResolvedLocation> {
    const input = origin ?? merchant.address;
    if (!input) {
      throw new AppError('VALIDATION_ERROR', `${field} is required: the merchant profile has no address`, {
        fields: [{ field, message: 'is required (no merchant address on file)' }],
      });
    }
    return resolveLocation({ geocoder, input, field });
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
      minRoadM: minRoadMetres(origin, destination),
    });
    return Object.assign(price, { isTest: options.mode === 'test', origin, destination, packageType: options.packageType ?? null });
  }

  async function quoteDelivery(options: { merchant: Merchant; mode: Mode; input: QuoteCommand }): Promise<Quote> {
    const { input } = options;
    return quoteRoute({
      merchant: options.merchant,
      mode: options.mode,
      ...(input.origin !== undefined && { origin: input.origin }),
      destination: input.destination,
      weightKg: input.totalWeightKg ?? 0,
      ...(input.prepTimeMins !== undefined && { prepTimeMins: input.prepTimeMins }),
      ...(input.packageType !== undefined && { packageType: input.packageType }),
    });
  }

  return { quoteDelivery, quoteRoute, resolveOrigin };
}
