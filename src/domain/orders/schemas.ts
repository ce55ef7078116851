import { z } from 'zod';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../json-depth.js';
import { latLngSchema, locationInputSchema, type LocationInput } from '../locations.js';
import { prepTimeSchema } from '../merchants.js';
import { phoneSchema } from '../phone.js';
import { normalizeRut } from '../rut.js';
import { ORDER_STATUSES, PAYMENT_MODES, VEHICLE_TYPES, type PaymentMode } from '../types.js';
import { GEOHASH_ZONE_PATTERN } from './identifiers.js';

/**
 * An element of `items`: the spec does not fix its fields; name, quantity and weight are understood.
 * Other fields are kept, nested at most to the body's depth limit (body → items → item → …): the
 * idempotency hash walks the body recursively.
 */
const orderItemSchema = z
  .looseObject({
    name: z.string().trim().max(200).optional(),
    quantity: z.number().int().min(1).max(10_000).default(1),
    weight_kg: z.number().min(0).max(10_000).optional(),
  })
  .refine((item) => !exceedsJsonDepth(item, MAX_JSON_DEPTH - 2), { message: `nests deeper than ${MAX_JSON_DEPTH} levels (counted from the body)` });

const rutSchema = z
  .string()
  .max(20)
  .transform((v, ctx) => {
    const rut = normalizeRut(v);
    if (!rut) ctx.addIssue({ code: 'custom', message: 'not a valid RUT (format or check digit)' });
    return rut ?? '';
  });

/**
 * POST /orders, both documented forms in one schema. Form A: pickup/dropoff Address objects,
 * reference_id, items. Form B: dropoff_address (string or object), payment_mode (required with it),
 * customer_rut, prep_time_mins, order_notes; pickup defaults to the merchant address.
 */
export const createOrderSchema = z
  .strictObject({
    pickup: locationInputSchema.optional(),
    dropoff: locationInputSchema.optional(),
    dropoff_address: locationInputSchema.optional(),
    customer_name: z.string().trim().min(1).max(200),
    customer_phone: phoneSchema,
    customer_rut: rutSchema.optional(),
    payment_mode: z.enum(PAYMENT_MODES).optional(),
    reference_id: z.string().trim().min(1).max(100).optional(),
    items: z.array(orderItemSchema).max(200).optional(),
    total_weight_kg: z.number().min(0).max(100_000).optional(),
    prep_time_mins: prepTimeSchema.optional(),
    order_notes: z.string().trim().max(1000).optional(),
  })
  .superRefine((v, ctx) => {
    if (v.dropoff === undefined && v.dropoff_address === undefined) {
      ctx.addIssue({ code: 'custom', path: ['dropoff'], message: 'is required (dropoff or dropoff_address)' });
    }
    if (v.dropoff !== undefined && v.dropoff_address !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['dropoff_address'], message: 'give dropoff or dropoff_address, not both' });
    }
    if (v.dropoff_address !== undefined && v.payment_mode === undefined) {
      ctx.addIssue({ code: 'custom', path: ['payment_mode'], message: 'is required with dropoff_address' });
    }
  });

/** What an order is made from, whichever door it came through (REST, GraphQL, storefront webhook). */
export interface OrderDraft {
  pickup?: LocationInput;
  dropoff: LocationInput;
  customerName: string;
  customerPhone: string | null;
  customerRut: string | null;
  paymentMode: PaymentMode;
  referenceId: string | null;
  ecommerceOrderId: string | null;
  items: Array<Record<string, unknown>>;
  weightKg: number;
  prepTimeMins?: number;
  notes: string | null;
}

export function draftFromRequest(input: z.output<typeof createOrderSchema>): OrderDraft {
  const items = input.items ?? [];
  const itemsWeight = items.reduce((sum, item) => sum + (item.weight_kg ?? 0) * item.quantity, 0);
  return {
    dropoff: (input.dropoff ?? input.dropoff_address)!,
    ...(input.pickup !== undefined && { pickup: input.pickup }),
    customerName: input.customer_name,
    customerPhone: input.customer_phone,
    customerRut: input.customer_rut ?? null,
    paymentMode: input.payment_mode ?? 'prepaid',
    referenceId: input.reference_id ?? null,
    ecommerceOrderId: null,
    items,
    weightKg: input.total_weight_kg ?? itemsWeight,
    ...(input.prep_time_mins !== undefined && { prepTimeMins: input.prep_time_mins }),
    notes: input.order_notes ?? null,
  };
}

export const cancelOrderSchema = z.strictObject({ reason: z.string().trim().max(500).optional() });

const evidenceUrl = z.url({ protocol: /^https?$/ }).max(2000);

/** POST /orders/{id}/deliver. geofence_radius is in metres. */
export const deliverOrderSchema = z.strictObject({
  driver_id: z.string().trim().min(1).max(64),
  coords: latLngSchema,
  photo_url: evidenceUrl,
  signature_url: evidenceUrl,
  geofence_radius: z.number().positive().max(5000).default(20),
  bypass: z.boolean().default(false),
});

export const consolidateSchema = z.strictObject({
  geohash_zone: z.string().trim().toLowerCase().regex(GEOHASH_ZONE_PATTERN, 'must be a geohash (1–12 characters of 0-9, b-z without a, i, l, o)'),
  target_car_type: z.enum(VEHICLE_TYPES).default('car'),
});

export const listOrdersSchema = z.strictObject({
  status: z.union([z.enum(ORDER_STATUSES), z.array(z.enum(ORDER_STATUSES)).max(7)]).optional(),
  created_from: z.iso.datetime({ offset: true }).optional(),
  created_to: z.iso.datetime({ offset: true }).optional(),
  after: z.string().trim().min(1).max(64).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

/** Idempotency-Key header: printable ASCII, bounded. */
export const idempotencyKeySchema = z.string().trim().min(1).max(255).regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');
