import type { Clock } from '../../ports/clock.js';
import type { Store } from '../../ports/store.js';
import type { MerchantPrincipal } from '../auth.js';
import { AppError } from '../errors.js';
import { distanceMeters } from '../geo.js';
import type { ParcelSize } from '../parcels.js';
import { selectVehicle, type Tariff } from '../tariffs.js';
import type { LatLng, OrderQuoteRef, RateId, StoredQuote } from '../types.js';

/** How far an order's pickup or drop-off may lie from the quoted one and still book the quote. */
export const QUOTE_ROUTE_TOLERANCE_M = 100;

export interface QuoteBinding {
  quote: StoredQuote;
  ref: OrderQuoteRef;
  /** The quoted cost of the chosen rate: what the order is charged. */
  price: number;
}

/**
 * The quote an order names, checked against it: the caller's own (merchant and mode; any other id is
 * QUOTE_NOT_FOUND, never its price), unexpired (else 409 QUOTE_EXPIRED), and for the same delivery:
 * both ends within QUOTE_ROUTE_TOLERANCE_M of the quoted ones and a parcel in the same price band
 * (the vehicle class its weight and size select), else 422 QUOTE_MISMATCH.
 */
export async function bindQuote(options: {
  store: Store;
  clock: Clock;
  tariff: Tariff;
  principal: MerchantPrincipal;
  quoteId: string;
  rateId: RateId | undefined;
  pickup: LatLng;
  dropoff: LatLng;
  /** A multi-stop order's drop-offs before `dropoff`, in route order (none: one drop-off). */
  via?: readonly LatLng[];
  weightKg: number;
  size: ParcelSize | null;
}): Promise<QuoteBinding> {
  const { principal, quoteId } = options;
  const quote = await options.store.quotes.find({ id: quoteId, merchantId: principal.merchant.id, mode: principal.mode });
  if (!quote) throw new AppError('QUOTE_NOT_FOUND', `No quote ${quoteId.slice(0, 64)} for this merchant in ${principal.mode} mode`, { fields: [{ field: 'quoteId', message: 'not found' }] });
  if (Date.parse(quote.expiresAt) <= options.clock.now().getTime()) {
    throw new AppError('QUOTE_EXPIRED', `Quote ${quote.id} expired at ${quote.expiresAt}; ask for a new quote`, { details: { expires_at: quote.expiresAt } });
  }
  const mismatches: Array<{ field: string; message: string }> = [];
  const pickupOff = Math.round(distanceMeters(options.pickup, quote.origin));
  if (pickupOff > QUOTE_ROUTE_TOLERANCE_M) mismatches.push({ field: 'pickup', message: `is ${pickupOff} m from the quoted origin (tolerance ${QUOTE_ROUTE_TOLERANCE_M} m)` });
  const dropoffOff = Math.round(distanceMeters(options.dropoff, quote.destination));
  if (dropoffOff > QUOTE_ROUTE_TOLERANCE_M) mismatches.push({ field: 'dropoff', message: `is ${dropoffOff} m from the quoted destination (tolerance ${QUOTE_ROUTE_TOLERANCE_M} m)` });
  // The same stops in the same route order, each within the tolerance: the route the quote priced.
  const [via, quoted] = [options.via ?? [], quote.via ?? []];
  if (via.length !== quoted.length || via.some((p, i) => distanceMeters(p, quoted[i]!) > QUOTE_ROUTE_TOLERANCE_M)) {
    mismatches.push({ field: 'stops', message: `are not the quoted route's stops (${quoted.length + 1} drop-offs quoted, in route order)` });
  }
  const band = selectVehicle(options.tariff, options.weightKg, options.size).type;
  if (band !== quote.vehicleType) {
    const parcel = options.size ? `${options.weightKg} kg, ${options.size.volumeL} L` : `${options.weightKg} kg`;
    mismatches.push({ field: options.size ? 'dimensions' : 'totalWeightKg', message: `${parcel} is priced as ${band}; the quote (${quote.weightKg} kg) was priced as ${quote.vehicleType}` });
  }
  if (mismatches.length > 0) {
    throw new AppError('QUOTE_MISMATCH', `The order differs from quote ${quote.id}: ${mismatches.map((m) => `${m.field} ${m.message}`).join('; ')}`, { fields: mismatches });
  }
  const rateId = options.rateId ?? 'express';
  const rate = quote.rates.find((r) => r.id === rateId);
  if (!rate) throw new AppError('VALIDATION_ERROR', `Quote ${quote.id} has no rate ${rateId}`, { fields: [{ field: 'rateId', message: 'not a rate of this quote' }] });
  return { quote, ref: { id: quote.id, rateId }, price: rate.cost };
}
