import { z } from 'zod';
import type { Clock } from '../ports/clock.js';
import type { Geocoder } from '../ports/geocoder.js';
import type { IdSource } from '../ports/ids.js';
import type { Store } from '../ports/store.js';
import { AppError } from './errors.js';
import { locationInputSchema, minRoadMetres, resolveLocation, type LocationInput, type ResolvedLocation } from './locations.js';
import { prepTimeSchema } from './merchants.js';
import { dimensionsSchema, parcelSize, type ParcelSize } from './parcels.js';
import { priceRoute, type RoutePrice } from './pricing.js';
import { planSchedule, scheduleTimeSchema } from './scheduling.js';
import type { Tariff } from './tariffs.js';
import { ROUTE_ORDERS, type LatLng, type Merchant, type Mode, type RouteOrder, type StoredQuote } from './types.js';
import { MAX_STOPS, planRoute } from './orders/stops.js';

/** How long a quote's price is guaranteed to an order that names it. */
export const QUOTE_TTL_MS = 15 * 60_000;

/** Quote a delivery, in the domain's terms (REST maps its body onto it in rest/wire/quotes.ts). */
export const quoteCommandSchema = z.strictObject({
  /** Default: the merchant profile address. */
  origin: locationInputSchema.optional(),
  /** One drop-off; a multi-stop quote gives `stops` instead (exactly one of the two). */
  destination: locationInputSchema.optional(),
  /** 1–10 drop-offs (addresses), priced along the route as a multi-stop order is. */
  stops: z.array(locationInputSchema).min(1).max(MAX_STOPS).optional(),
  route: z.enum(ROUTE_ORDERS).optional(),
  packageType: z.string().trim().max(50).optional(),
  totalWeightKg: z.number().min(0).max(100_000).optional(),
  /** The whole parcel's outer size: a parcel too big for the weight's vehicle is priced on a larger one. */
  dimensions: dimensionsSchema.optional(),
  prepTimeMins: prepTimeSchema.optional(),
  /** Scheduled pickup: not before this time (up to 7 days ahead). */
  pickupAfter: scheduleTimeSchema.optional(),
  /** Delivered by this time (must be reachable). */
  deliverBefore: scheduleTimeSchema.optional(),
}).superRefine((v, ctx) => {
  if ((v.destination === undefined) === (v.stops === undefined)) ctx.addIssue({ code: 'custom', path: ['destination'], message: 'give either destination or stops (exactly one)' });
  if (v.route !== undefined && v.stops === undefined) ctx.addIssue({ code: 'custom', path: ['route'], message: 'is only accepted with stops' });
});
export type QuoteCommand = z.output<typeof quoteCommandSchema>;

export interface Quote extends RoutePrice {
  isTest: boolean;
  origin: ResolvedLocation;
  destination: ResolvedLocation;
  /** A multi-stop quote: the drop-offs before `destination`, in route order. */
  via: ResolvedLocation[];
  packageType: string | null;
}

/** A quote answered to a merchant (POST /shipping/quote, GraphQL quote): stored, so an order can name it. */
export interface BoundQuote extends Quote {
  id: string;
  expiresAt: Date;
  scheduledPickupAt: string | null;
  deliverBefore: string | null;
}

/** Prep time resolution: the request, then the merchant default, then 0. */
export function resolvePrepTime(requested: number | undefined, merchant: Merchant): number {
  return requested ?? merchant.settings.prepTimeMins ?? 0;
}

export type QuoteService = ReturnType<typeof createQuoteService>;

export function createQuoteService(deps: { geocoder: Geocoder; tariff: Tariff; clock: Clock; store: Store; ids: IdSource }) {
  const { geocoder, tariff, clock, store, ids } = deps;

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
    /** One drop-off, or `stops` (a multi-stop route, planned and priced as its order would be). */
    destination?: LocationInput;
    stops?: LocationInput[];
    route?: RouteOrder;
    weightKg?: number;
    size?: ParcelSize | null;
    prepTimeMins?: number;
    packageType?: string;
  }): Promise<Quote> {
    const [origin, dropoffs] = await Promise.all([
      resolveOrigin(options.merchant, options.origin),
      options.stops
        ? Promise.all(options.stops.map((input, i) => resolveLocation({ geocoder, input, field: `stops[${i}]` })))
        : resolveLocation({ geocoder, input: options.destination!, field: 'destination' }).then((d) => [d]),
    ]);
    const visits = planRoute({ origin, stops: dropoffs, route: options.route ?? 'given' }).map((i) => dropoffs[i]!);
    const destination = visits.at(-1)!;
    const via = visits.slice(0, -1);
    const price = priceRoute({
      tariff,
      origin,
      destination,
      weightKg: options.weightKg ?? 0,
      size: options.size ?? null,
      prepTimeMins: resolvePrepTime(options.prepTimeMins, options.merchant),
      now: clock.now(),
      minRoadM: Math.max(...visits.map((v) => minRoadMetres(origin, v))),
      ...(via.length > 0 && { via }),
    });
    // A multi-stop order books the express rate only (it waits for no batch companions): its quote offers only what it can book.
    const rates = options.stops ? price.rates.filter((r) => r.id !== 'batched') : price.rates;
    return Object.assign(price, { rates, isTest: options.mode === 'test', origin, destination, via, packageType: options.packageType ?? null });
  }

  /**
   * Quotes a delivery and keeps the quote for QUOTE_TTL_MS: an order naming its id is charged exactly
   * the quoted rate. A requested window moves the estimates (and must be reachable).
   */
  async function quoteDelivery(options: { merchant: Merchant; mode: Mode; input: QuoteCommand }): Promise<BoundQuote> {
    const { input, merchant, mode } = options;
    const quote = await routeQuote(options);
    const scheduled = input.pickupAfter !== undefined || input.deliverBefore !== undefined;
    const now = clock.now();
    const plan = scheduled
      ? planSchedule({
          now,
          request: input,
          waitMs: Math.max(quote.prepTimeMins, tariff.default_approach_mins) * 60_000,
          travelMs: quote.travelMins * 60_000,
          approachMs: tariff.default_approach_mins * 60_000,
        })
      : null;
    const stored: StoredQuote = {
      id: ids.next('qt'), merchantId: merchant.id, mode,
      origin: { lat: quote.origin.lat, lng: quote.origin.lng }, destination: { lat: quote.destination.lat, lng: quote.destination.lng },
      ...(quote.via.length > 0 && { via: quote.via.map((p): LatLng => ({ lat: p.lat, lng: p.lng })) }),
      weightKg: input.totalWeightKg ?? 0, vehicleType: quote.vehicleType, prepTimeMins: quote.prepTimeMins,
      rates: quote.rates.map((r) => ({ id: r.id, cost: r.cost })),
      pickupAfter: plan?.scheduledPickupAt ?? null, deliverBefore: plan?.deliverBefore ?? null,
      createdAt: now.toISOString(), expiresAt: new Date(now.getTime() + QUOTE_TTL_MS).toISOString(),
    };
    await store.quotes.insert(stored);
    return Object.assign(quote, plan && { pickupAt: plan.pickupAt, deliveryAt: plan.deliveryAt }, {
      id: stored.id, expiresAt: new Date(stored.expiresAt), scheduledPickupAt: stored.pickupAfter, deliverBefore: stored.deliverBefore,
    });
  }

  async function routeQuote(options: { merchant: Merchant; mode: Mode; input: QuoteCommand }): Promise<Quote> {
    const { input } = options;
    return quoteRoute({
      merchant: options.merchant,
      mode: options.mode,
      ...(input.origin !== undefined && { origin: input.origin }),
      ...(input.destination !== undefined && { destination: input.destination }),
      ...(input.stops !== undefined && { stops: input.stops }),
      ...(input.route !== undefined && { route: input.route }),
      weightKg: input.totalWeightKg ?? 0,
      size: parcelSize({ dimensions: input.dimensions ?? null }),
      ...(input.prepTimeMins !== undefined && { prepTimeMins: input.prepTimeMins }),
      ...(input.packageType !== undefined && { packageType: input.packageType }),
    });
  }

  return { quoteDelivery, quoteRoute, resolveOrigin };
}
