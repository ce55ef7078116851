import { z } from 'zod';
import { prepTimeSchema } from '../merchants.js';
import type { Quote } from '../quotes.js';

const numeric = z.union([z.number(), z.string().trim().regex(/^\d+(\.\d+)?$/).transform(Number)]);

/** One cart line: the spec's {name, quantity}, optionally the product weight in kg (WooCommerce get_weight()). */
const pluginItemSchema = z.looseObject({
  name: z.string().max(200).optional(),
  quantity: z.number().int().min(1).max(10_000),
  weight: numeric.pipe(z.number().min(0).max(10_000)).optional(),
});

/**
 * The e-commerce plugin's rate request. `contents` is the spec's array, or WooCommerce's own
 * package contents (a PHP array keyed by cart-item hash, which arrives as a JSON object).
 */
export const pluginQuoteSchema = z.looseObject({
  destination: z.looseObject({
    address: z.string().trim().max(300).optional(),
    address_1: z.string().trim().max(300).optional(),
    city: z.string().trim().max(100).optional(),
    state: z.string().trim().max(100).optional(),
    postcode: z.string().trim().max(20).optional(),
    postal_code: z.string().trim().max(20).optional(),
    country: z.string().trim().max(2).optional(),
  }),
  contents: z
    .union([z.array(pluginItemSchema).max(500), z.record(z.string().max(100), pluginItemSchema)])
    .optional()
    .refine((c) => c === undefined || Array.isArray(c) || Object.keys(c).length <= 500, 'at most 500 items'),
  total_weight: numeric.pipe(z.number().min(0).max(100_000)).optional(),
  prep_time_mins: prepTimeSchema.optional(),
});

export type PluginQuoteInput = z.output<typeof pluginQuoteSchema>;

export function pluginDestinationText(input: PluginQuoteInput): string {
  const d = input.destination;
  return [d.address ?? d.address_1, d.city].filter((part) => part && part.length > 0).join(', ');
}

export function pluginWeightKg(input: PluginQuoteInput): number {
  if (input.total_weight !== undefined) return input.total_weight;
  const items = Array.isArray(input.contents) ? input.contents : Object.values(input.contents ?? {});
  return items.reduce((sum, item) => sum + (item.weight ?? 0) * item.quantity, 0);
}

/** WooCommerce add_rate() arguments: id, label, cost (string of integer pesos), meta_data. */
export function toPluginRates(quote: Quote) {
  return quote.rates.map((rate) => ({
    id: `express_delivery:${rate.id}`,
    label: `${rate.name} · ${rate.estimatedMinutes} min`,
    cost: String(rate.cost),
    meta_data: { eta_minutes: rate.estimatedMinutes, vehicle_type: quote.vehicleType, recommended: rate.recommended },
  }));
}
