import { z } from 'zod';
import type { Quote } from '../quotes.js';

const shopifyAddressSchema = z.looseObject({
  country: z.string().max(2).nullish(),
  postal_code: z.string().max(20).nullish(),
  province: z.string().max(100).nullish(),
  city: z.string().max(100).nullish(),
  address1: z.string().max(300).nullish(),
  address2: z.string().max(300).nullish(),
});

/** Shopify CarrierService rate request (only the fields we use are checked; the rest pass through). */
export const carrierServiceRequestSchema = z.looseObject({
  rate: z.looseObject({
    origin: shopifyAddressSchema,
    destination: shopifyAddressSchema,
    items: z
      .array(
        z.looseObject({
          name: z.string().max(300).nullish(),
          quantity: z.number().int().min(0).max(100_000),
          grams: z.number().min(0).max(100_000_000),
          requires_shipping: z.boolean().nullish(),
        }),
      )
      .max(1000),
    currency: z.string().max(3).nullish(),
    locale: z.string().max(20).nullish(),
  }),
});

export type CarrierServiceRequest = z.output<typeof carrierServiceRequestSchema>;
type ShopifyAddress = z.output<typeof shopifyAddressSchema>;

export function shopifyAddressText(a: ShopifyAddress): string {
  return [a.address1, a.city, a.province].filter((p) => p && p.trim().length > 0).join(', ');
}

export function shopifyWeightKg(request: CarrierServiceRequest): number {
  return request.rate.items.filter((i) => i.requires_shipping !== false).reduce((sum, i) => sum + i.grams * i.quantity, 0) / 1000;
}

/** Shopify's date format for rates: "2013-04-12 14:48:45 -0400" (we answer in UTC). */
export function shopifyDate(d: Date): string {
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} +0000`;
}

/** Margin after the estimate that max_delivery_date allows for traffic. */
const DELIVERY_WINDOW_MINS = 15;
const SERVICE_CODES = { express: 'EXPRESS', batched: 'BATCHED' } as const;

/** Shopify wants total_price in subunits as a string: CLP × 100. */
export function toCarrierServiceRates(quote: Quote) {
  const quotedAt = quote.pickupAt.getTime() - quote.prepTimeMins * 60_000;
  return quote.rates.map((rate) => {
    const earliest = new Date(quotedAt + quote.totalMins * 60_000);
    const latest = new Date(quotedAt + (rate.estimatedMinutes + DELIVERY_WINDOW_MINS) * 60_000);
    return {
      service_name: `Express Delivery ${rate.name}`,
      service_code: SERVICE_CODES[rate.id],
      total_price: String(rate.cost * 100),
      currency: quote.currency,
      description: `Delivered in about ${rate.estimatedMinutes} minutes`,
      min_delivery_date: shopifyDate(earliest),
      max_delivery_date: shopifyDate(latest),
    };
  });
}
