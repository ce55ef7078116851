import { z } from 'zod';
import { idCursorSchema } from '../cursors.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../json-depth.js';
import { latLngSchema, locationInputSchema, type LocationInput } from '../locations.js';
import { prepTimeSchema } from '../merchants.js';
import { dimensionsSchema, type Dimensions } from '../parcels.js';
import { phoneSchema } from '../phone.js';
import { normalizeRut } from '../rut.js';
import { scheduleTimeSchema } from '../scheduling.js';
import { FAILED_ATTEMPT_POLICIES, ORDER_STATUSES, PAYMENT_MODES, RATE_IDS, VEHICLE_TYPES, type FailedAttemptPolicy, type PaymentMode, type RateId } from '../types.js';
import { GEOHASH_ZONE_PATTERN } from './identifiers.js';
import { assertCodAmount, codAmountSchema, codCollectedSchema } from './cod.js';
import { DEFAULT_ID_CHECK_MIN_AGE, idCheckInputSchema, idCheckRequirementSchema } from './id-check.js';
import { tipSchema } from './tips.js';
import { stopIdSchema, stopsInputSchema, type StopInput } from './stops.js';
import { ROUTE_ORDERS, type RouteOrder } from '../types.js';

const sideCm = z.number().positive().max(1000).optional();

/**
 * An element of `items`: the spec does not fix its fields; name, quantity, weight and the three
 * sides (cm: an item measured on all three counts towards the parcel's size) are understood.
 * Other fields are kept, nested at most to the body's depth limit (body → items → item → …): the
 * idempotency hash walks the body recursively.
 */
const orderItemSchema = z
  .looseObject({
    name: z.string().trim().max(200).optional(),
    quantity: z.number().int().min(1).max(10_000).default(1),
    weight_kg: z.number().min(0).max(10_000).optional(),
    length_cm: sideCm,
    width_cm: sideCm,
    height_cm: sideCm,
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
 * The domain's commands and queries on orders, in its own (camelCase) terms; each transport maps its
 * wire form onto them (REST: rest/wire/, GraphQL: the input types) and parses with these schemas or
 * with wire schemas built from the same field schemas.
 */
export const createOrderCommandSchema = z.strictObject({
  /** Default: the merchant profile address. */
  pickup: locationInputSchema.optional(),
  /** One drop-off; a multi-stop order gives `stops` instead (exactly one of the two). */
  dropoff: locationInputSchema.optional(),
  /** 1–10 drop-offs, visited in the given order or an optimised one (`route`). */
  stops: stopsInputSchema.optional(),
  /** The visiting order of `stops` (default `given`); only with stops. */
  route: z.enum(ROUTE_ORDERS).optional(),
  customerName: z.string().trim().min(1).max(200),
  customerPhone: phoneSchema,
  /** The recipient's email, for email notifications. */
  customerEmail: z.email().max(254).optional(),
  customerRut: rutSchema.optional(),
  paymentMode: z.enum(PAYMENT_MODES).optional(),
  referenceId: z.string().trim().min(1).max(100).optional(),
  /** The merchant's own line items, kept as given; `quantity` and `weight_kg` are read. */
  items: z.array(orderItemSchema).max(200).optional(),
  totalWeightKg: z.number().min(0).max(100_000).optional(),
  /** The whole parcel's outer size (else the items' sizes are summed). */
  dimensions: dimensionsSchema.optional(),
  prepTimeMins: prepTimeSchema.optional(),
  notes: z.string().trim().max(1000).optional(),
  /** A quote of this merchant and mode (15 minutes): the order is charged exactly its rate. */
  quoteId: z.string().trim().min(1).max(64).optional(),
  /** The quote's rate to book (default express); only with quoteId. */
  rateId: z.enum(RATE_IDS).optional(),
  /** Scheduled pickup: not before this time (up to 7 days ahead); the order waits, `new`, until its window opens. */
  pickupAfter: scheduleTimeSchema.optional(),
  /** Delivered by this time (must be reachable). */
  deliverBefore: scheduleTimeSchema.optional(),
  /** Issue a 4-digit PIN the recipient gives the courier; the delivery is confirmed only with it. */
  deliveryPin: z.boolean().optional(),
  /** The courier checks the recipient's ID (RUT and age) at the door before the delivery. */
  idCheck: idCheckRequirementSchema.optional(),
  /** What a failed delivery attempt leads to (default `return`): another try, the return leg, or disposal. */
  failedAttemptPolicy: z.enum(FAILED_ATTEMPT_POLICIES).optional(),
  /** Cash on delivery: the CLP the courier collects (required with, and only with, paymentMode cash_on_delivery). */
  codAmount: codAmountSchema.optional(),
  /** The courier's tip, CLP 0–200,000 (more may be added until 24 h after the delivery). */
  tip: tipSchema.optional(),
}).superRefine((v, ctx) => {
  if ((v.dropoff === undefined) === (v.stops === undefined)) ctx.addIssue({ code: 'custom', path: ['stops'], message: 'give either dropoff or stops (exactly one)' });
  if (v.route !== undefined && v.stops === undefined) ctx.addIssue({ code: 'custom', path: ['route'], message: 'is only accepted with stops' });
  // A multi-stop order is a route of its own: never waiting for batch companions.
  if (v.stops !== undefined && v.rateId === 'batched') ctx.addIssue({ code: 'custom', path: ['rateId'], message: 'a multi-stop order books the express rate' });
});
export type CreateOrderCommand = z.output<typeof createOrderCommandSchema>;

/** What an order is made from, whichever door it came through (REST, GraphQL, storefront webhook). */
export interface OrderDraft {
  pickup?: LocationInput;
  /** With `stops`, the route's drop-offs are those and this is unused. */
  dropoff: LocationInput;
  stops?: StopInput[];
  route?: RouteOrder;
  customerName: string;
  customerPhone: string | null;
  customerEmail?: string | null;
  customerRut: string | null;
  paymentMode: PaymentMode;
  referenceId: string | null;
  ecommerceOrderId: string | null;
  items: Array<Record<string, unknown>>;
  weightKg: number;
  dimensions?: Dimensions | null;
  prepTimeMins?: number;
  notes: string | null;
  quoteId?: string;
  rateId?: RateId;
  pickupAfter?: string;
  deliverBefore?: string;
  deliveryPin?: boolean;
  idCheck?: { minAge: number };
  failedAttemptPolicy?: FailedAttemptPolicy;
  codAmount?: number;
  /** CLP; 0 or absent: none. */
  tip?: number;
}

export function draftFromCommand(input: CreateOrderCommand): OrderDraft {
  assertCodAmount({ paymentMode: input.paymentMode ?? 'prepaid', codAmount: input.codAmount, multiStop: input.stops !== undefined });
  const items = input.items ?? [];
  const itemsWeight = items.reduce((sum, item) => sum + (item.weight_kg ?? 0) * item.quantity, 0);
  return {
    // The schema gives exactly one of dropoff and stops.
    dropoff: input.dropoff ?? input.stops![0]!.address,
    ...(input.stops !== undefined && { stops: input.stops, route: input.route ?? 'given' }),
    ...(input.pickup !== undefined && { pickup: input.pickup }),
    customerName: input.customerName,
    customerPhone: input.customerPhone,
    ...(input.customerEmail !== undefined && { customerEmail: input.customerEmail }),
    customerRut: input.customerRut ?? null,
    paymentMode: input.paymentMode ?? 'prepaid',
    referenceId: input.referenceId ?? null,
    ecommerceOrderId: null,
    items,
    weightKg: input.totalWeightKg ?? itemsWeight,
    dimensions: input.dimensions ?? null,
    ...(input.prepTimeMins !== undefined && { prepTimeMins: input.prepTimeMins }),
    notes: input.notes ?? null,
    ...(input.quoteId !== undefined && { quoteId: input.quoteId }),
    ...(input.rateId !== undefined && { rateId: input.rateId }),
    ...(input.pickupAfter !== undefined && { pickupAfter: input.pickupAfter }),
    ...(input.deliverBefore !== undefined && { deliverBefore: input.deliverBefore }),
    ...(input.deliveryPin !== undefined && { deliveryPin: input.deliveryPin }),
    ...(input.idCheck !== undefined && { idCheck: { minAge: input.idCheck.minAge ?? DEFAULT_ID_CHECK_MIN_AGE } }),
    ...(input.failedAttemptPolicy !== undefined && { failedAttemptPolicy: input.failedAttemptPolicy }),
    ...(input.codAmount !== undefined && { codAmount: input.codAmount }),
    ...(input.tip !== undefined && { tip: input.tip }),
  };
}

export const cancelOrderCommandSchema = z.strictObject({ reason: z.string().trim().max(500).optional() });
export type CancelOrderCommand = z.output<typeof cancelOrderCommandSchema>;

const evidenceUrl = z.url({ protocol: /^https?$/ }).max(2000);

/** Proof of delivery. `geofenceRadius` is in metres. */
export const confirmDeliveryCommandSchema = z.strictObject({
  driverId: z.string().trim().min(1).max(64),
  coords: latLngSchema,
  /** Each of photo and signature: an external URL, or a proof uploaded for the order (issue #27). */
  photoUrl: evidenceUrl.optional(),
  signatureUrl: evidenceUrl.optional(),
  photoProofId: z.string().trim().min(1).max(64).optional(),
  signatureProofId: z.string().trim().min(1).max(64).optional(),
  geofenceRadius: z.number().positive().max(5000).default(20),
  bypass: z.boolean().default(false),
  /** The recipient's delivery PIN, required when the order has one. */
  pin: z.string().regex(/^\d{4}$/, 'must be 4 digits').optional(),
  /** The recipient's ID as the courier read it, required when the order has an ID check. */
  idCheck: idCheckInputSchema.optional(),
  /** The CLP collected at the door, required when the order has a cod_amount. */
  codCollected: codCollectedSchema.optional(),
  /** A multi-stop order: the stop delivered, which must be the current one (default: the current one). */
  stopId: stopIdSchema.optional(),
});
export type ConfirmDeliveryCommand = z.output<typeof confirmDeliveryCommandSchema>;

export const consolidateCommandSchema = z.strictObject({
  geohashZone: z.string().trim().toLowerCase().regex(GEOHASH_ZONE_PATTERN, 'must be a geohash (1–12 characters of 0-9, b-z without a, i, l, o)'),
  targetCarType: z.enum(VEHICLE_TYPES).default('car'),
});
export type ConsolidateCommand = z.output<typeof consolidateCommandSchema>;

export const ORDER_PAGE_MAX = 100;

export const listOrdersQuerySchema = z.strictObject({
  status: z.union([z.enum(ORDER_STATUSES), z.array(z.enum(ORDER_STATUSES)).max(ORDER_STATUSES.length)]).optional(),
  createdFrom: z.iso.datetime({ offset: true }).optional(),
  createdTo: z.iso.datetime({ offset: true }).optional(),
  /** The `next_cursor` of the previous page (a booking id). */
  after: idCursorSchema('bk').optional(),
  limit: z.number().int().min(1).max(ORDER_PAGE_MAX).default(20),
});
export type ListOrdersQuery = z.output<typeof listOrdersQuerySchema>;

const operatorIdSchema = z.string().trim().min(1).max(64);
const instantSchema = z.iso.datetime({ offset: true }).transform((s) => new Date(s).toISOString());

/** Operators' orders across merchants (issue #29): every filter optional, newest first. */
export const operatorListOrdersSchema = z.strictObject({
  status: z.array(z.enum(ORDER_STATUSES)).max(ORDER_STATUSES.length).optional(),
  merchantId: operatorIdSchema.optional(),
  mode: z.enum(['live', 'test']).optional(),
  /** Past its ETA or delivery window end and still in progress. */
  late: z.boolean().optional(),
  /** A geohash prefix (2–6 characters) the pickup is in. */
  zone: z.string().trim().toLowerCase().regex(/^[0-9b-hjkmnp-z]{2,6}$/, 'a geohash prefix of 2 to 6 characters').optional(),
  /** A comuna's name (issue #38): the pickup is in it (the gazetteer's rule); not with `zone`. */
  comuna: z.string().trim().min(1).max(80).optional(),
  createdFrom: instantSchema.optional(),
  createdTo: instantSchema.optional(),
  first: z.number().int().min(1).max(ORDER_PAGE_MAX).default(20),
  /** The previous page's last booking id. */
  after: idCursorSchema('bk').optional(),
}).refine((v) => !(v.zone && v.comuna), { message: 'give a zone or a comuna, not both', path: ['comuna'] });
export const operatorOrderRefSchema = z.strictObject({ orderId: operatorIdSchema });
export const operatorAssignSchema = z.strictObject({ orderId: operatorIdSchema, courierId: operatorIdSchema });
export const operatorReleaseSchema = z.strictObject({ orderId: operatorIdSchema, reason: z.string().trim().min(1).max(500).optional() });
export const operatorCancelSchema = z.strictObject({ orderId: operatorIdSchema, reason: z.string().trim().min(1).max(500) });
