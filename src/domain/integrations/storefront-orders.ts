import { isSafeNumber, parse } from 'lossless-json';
import { z } from 'zod';
import { AppError } from '../errors.js';
import { phoneSchema } from '../phone.js';
import type { OrderDraft } from '../orders/schemas.js';

/**
 * Parses a storefront webhook body keeping integers beyond 2^53 exact: Shopify ids such as
 * 820982911946154508 become strings instead of silently losing digits.
 */
export function parseStorefrontJson(raw: string): unknown {
  try {
    return parse(raw, null, (value) => (isSafeNumber(value) ? Number(value) : value));
  } catch {
    throw new AppError('MALFORMED_JSON', 'Request body is not valid JSON');
  }
}

const idSchema = z.union([z.string().regex(/^\d{1,30}$/), z.number().int().nonnegative()]).transform(String);

const addressSchema = z
  .looseObject({
    address1: z.string().max(300).nullish(),
    address2: z.string().max(300).nullish(),
    city: z.string().max(100).nullish(),
    province: z.string().max(100).nullish(),
    country: z.string().max(100).nullish(),
    country_code: z.string().max(2).nullish(),
    name: z.string().max(200).nullish(),
    first_name: z.string().max(100).nullish(),
    last_name: z.string().max(100).nullish(),
    phone: z.string().max(40).nullish(),
    latitude: z.number().nullish(),
    longitude: z.number().nullish(),
  })
  .nullish();

/** The fields of Shopify's orders/create payload a dispatch needs; the rest passes through unread. */
export const shopifyOrderSchema = z.looseObject({
  id: idSchema,
  name: z.string().max(100).nullish(),
  financial_status: z.string().max(40).nullish(),
  cancelled_at: z.string().nullish(),
  note: z.string().max(5000).nullish(),
  phone: z.string().max(40).nullish(),
  total_weight: z.number().min(0).nullish(),
  shipping_address: addressSchema,
  customer: z.looseObject({ first_name: z.string().max(100).nullish(), last_name: z.string().max(100).nullish(), phone: z.string().max(40).nullish() }).nullish(),
  line_items: z
    .array(z.looseObject({ name: z.string().max(300).nullish(), quantity: z.number().int().min(0).max(100_000), grams: z.number().min(0).nullish(), sku: z.string().max(100).nullish() }))
    .max(1000)
    .default([]),
});

export type ShopifyOrder = z.output<typeof shopifyOrderSchema>;

/** Only paid, not cancelled orders become dispatches. */
export function isDispatchable(order: ShopifyOrder): { ok: true } | { ok: false; reason: string } {
  if (order.cancelled_at) return { ok: false, reason: 'order is cancelled' };
  if (order.financial_status !== 'paid') return { ok: false, reason: `financial_status is ${order.financial_status ?? 'missing'}, not paid` };
  if (!order.shipping_address) return { ok: false, reason: 'order has no shipping address' };
  return { ok: true };
}

function validPhone(...candidates: Array<string | null | undefined>): string | null {
  for (const candidate of candidates) {
    const parsed = candidate ? phoneSchema.safeParse(candidate) : null;
    if (parsed?.success) return parsed.data;
  }
  return null;
}

export function draftFromShopifyOrder(order: ShopifyOrder): OrderDraft {
  const a = order.shipping_address!;
  const name = a.name?.trim() || [a.first_name, a.last_name].filter(Boolean).join(' ') || [order.customer?.first_name, order.customer?.last_name].filter(Boolean).join(' ') || 'Customer';
  const gramsFromItems = order.line_items.reduce((g, item) => g + (item.grams ?? 0) * item.quantity, 0);
  const addressText = [a.address1, a.address2, a.city, a.province].filter((p) => p && p.trim()).join(', ');
  const hasCoords = typeof a.latitude === 'number' && typeof a.longitude === 'number';
  return {
    dropoff: hasCoords ? { address: addressText || 'shipping address', coords: { lat: a.latitude!, lng: a.longitude! } } : addressText,
    customerName: name.slice(0, 200),
    customerPhone: validPhone(a.phone, order.phone, order.customer?.phone),
    customerRut: null,
    paymentMode: 'prepaid',
    referenceId: order.name ?? null,
    ecommerceOrderId: order.id,
    items: order.line_items.map((i) => ({ name: i.name ?? null, quantity: i.quantity, grams: i.grams ?? 0, sku: i.sku ?? null })),
    weightKg: (order.total_weight || gramsFromItems) / 1000,
    notes: order.note ?? null,
  };
}
