/**
 * Wire shapes of REST responses (what rest/presenters produce), for the OpenAPI document.
 * Request schemas are never defined here: they are the domain's own zod schemas.
 */
import { z } from 'zod';
import { FAILED_ATTEMPT_POLICIES, INTEGRATION_NAMES, INTEGRATION_STATUSES, MERCHANT_STATUSES, MODES, VEHICLE_TYPES, type WebhookPayloadShape } from '../../src/domain/types.js';
import { errorResponseSchema, registry } from './registry.js';
import { locationPrecision } from './responses-orders.js';

const timestamp = z.iso.datetime({ offset: true }).openapi({ example: '2025-01-31T14:05:00.000Z' });
// The spec types both as strings: an unset value is the empty string, never null.
const merchantAddress = z.string().openapi({ description: 'The pickup address of quotes and orders that give none; empty string when not set.' });
const integrationPlatform = z
  .enum([...INTEGRATION_NAMES, ''])
  .openapi({ description: 'The platform the merchant integrates through; empty string when not set (set it to null to clear).' });

export const healthSchema = registry.register(
  'Health',
  z.object({
    success: z.boolean().openapi({ description: 'false when a required dependency is down (HTTP 503).' }),
    status: z.enum(['ok', 'degraded', 'down']),
    version: z.string().openapi({ example: 'v1.2.0' }),
    service: z.string().openapi({ example: 'express-delivery' }),
    timestamp,
    checks: z.record(z.string(), z.enum(['ok', 'degraded', 'down', 'disabled'])).openapi({ example: { store: 'ok', redis: 'disabled' } }),
    reasons: z
      .record(z.string(), z.string())
      .optional()
      .openapi({
        description: 'Why each `degraded` dependency is degraded (absent when none is); the store is degraded while writes answer 503 (a held lock, a full disk, a damaged file).',
        example: { store: 'another process holds the database write lock' },
      }),
  }),
);

export const merchantSettingsSchema = registry.register(
  'MerchantSettings',
  z.object({
    prep_time_mins: z.number().int().min(0).openapi({ description: 'Default preparation time, used when a quote or order gives none.' }),
    address: merchantAddress,
    storefront_domain: z.string().nullable().openapi({ example: 'shop.myshopify.com' }),
    integration_platform: integrationPlatform,
    webhook_payload_shape: z.enum(['event', 'flat'] as const satisfies readonly WebhookPayloadShape[]),
    webhook_courier_location: z.boolean(),
    sandbox_speed: z
      .number()
      .min(1)
      .max(1000)
      .nullable()
      .openapi({ description: 'Sandbox simulator speed factor for this merchant\'s test orders; null uses the operator default.' }),
    tracking_show_items: z.boolean().openapi({ description: "Whether the customer's tracking page shows a short summary of the order's items (default true)." }),
    failed_attempt_policy: z.enum(FAILED_ATTEMPT_POLICIES).openapi({ description: 'The failed-attempt policy of new orders that do not name one (default return).' }),
    storefront_signature_configured: z
      .boolean()
      .openapi({ description: 'Whether a storefront shared secret is stored. The secret itself is write-only (`storefront_shared_secret`) and never shown.' }),
  }),
);

export const merchantSchema = registry.register(
  'Merchant',
  z.object({
    id: z.string(),
    name: z.string(),
    status: z.enum(MERCHANT_STATUSES),
    prep_time_mins: z.number().int().min(0),
    address: merchantAddress,
    integration_platform: integrationPlatform,
    review_status: z.enum(['in_review', 'approved']),
    integrations: z.object({
      plugin: z.enum(INTEGRATION_STATUSES),
      storefront: z.enum(INTEGRATION_STATUSES),
      erp: z.enum(INTEGRATION_STATUSES),
    }),
    settings: merchantSettingsSchema,
    rate_limit_per_min: z.number().int().min(1),
    mode: z.enum(MODES).openapi({ description: 'The mode of the API key used: `live` or `test` (sandbox).' }),
    created_at: timestamp,
  }),
);

export const merchantMeResponseSchema = registry.register(
  'MerchantProfileResponse',
  z.object({ success: z.literal(true), merchant: merchantSchema }),
);

export const merchantSettingsUpdatedSchema = registry.register(
  'MerchantSettingsUpdatedResponse',
  z.object({
    success: z.literal(true),
    message: z.string().openapi({ example: 'Settings updated' }),
    prep_time_mins: z.number().int().min(0),
    settings: merchantSettingsSchema,
  }),
);

// --- Quotes and the integration rate endpoints -------------------------------------------------

const minutes = z.number().int().min(0);
const vehicleType = z.enum(VEHICLE_TYPES).openapi({ description: 'The smallest vehicle class that carries the weight.' });
const pesos = z.number().int().min(0).openapi({ description: 'Chilean pesos (CLP has no decimals).', example: 3990 });
/** Integer pesos written as a string (the shop platforms' money format). */
const pesosString = z.string().regex(/^\d+$/);
/** Shopify's rate date format: "2013-04-12 14:48:45 -0400" (we answer in UTC, +0000). */
const shopifyDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [+-]\d{4}$/)
  .openapi({ example: '2025-01-31 14:35:00 +0000' });

export const quoteRateSchema = registry.register(
  'QuoteRate',
  z.object({
    id: z.enum(['express', 'batched']),
    name: z.string().openapi({ example: 'Express (motorcycle)' }),
    cost: pesos,
    estimated_minutes: minutes.openapi({ description: 'Preparation + travel (+ the batching window for `batched`).' }),
    recommended: z.boolean(),
  }),
);

export const quoteResponseSchema = registry.register(
  'QuoteResponse',
  z
    .object({
      success: z.literal(true),
      quote_id: z.string().openapi({ description: 'Name it in POST /orders (`quote_id`, with `rate_id`) within 15 minutes to be charged exactly this price.', example: 'qt_01JHX3Z6Q8R2V4N7W9Y1A3C5E7' }),
      expires_at: timestamp.openapi({ description: 'When the quoted price stops binding (15 minutes after the quote).' }),
      is_test: z.boolean().openapi({ description: 'true when quoted with a test key (sandbox).' }),
      price: pesos.openapi({ description: 'The express (recommended) rate.' }),
      currency: z.literal('CLP'),
      estimated_time_mins: minutes.openapi({ description: 'Form A name of total_estimated_minutes.' }),
      vehicle_type: vehicleType,
      prep_time_minutes: minutes.openapi({ description: 'Request prep_time_mins, else the merchant default, else 0.' }),
      travel_time_minutes: minutes,
      total_estimated_minutes: minutes.openapi({ description: 'prep_time_minutes + travel_time_minutes.' }),
      estimated_pickup_time: timestamp.openapi({ description: 'Now + prep time.' }),
      estimated_delivery_time: timestamp.openapi({ description: 'estimated_pickup_time + travel time.' }),
      scheduled_pickup_at: timestamp.nullable().openapi({ description: 'The requested pickup_after (UTC), else null.' }),
      deliver_before: timestamp.nullable().openapi({ description: 'The requested deliver_before (UTC), else null.' }),
      distance_m: z.number().int().min(0).openapi({
        description: 'Estimated road distance in metres. When an end is known only to its comuna (precision `locality`), at least 3,000 m (a typical trip within one comuna).',
      }),
      precision: z
        .object({ origin: locationPrecision, destination: locationPrecision })
        .openapi({ description: 'How exactly each end was placed; send coordinates, or run with GEOCODER_URL, for street precision.' }),
      rates: z.array(quoteRateSchema),
    })
    .openapi({ description: 'The union of both documented response forms (A and B).' }),
);

export const pluginRatesResponseSchema = registry.register(
  'PluginRatesResponse',
  z.object({
    success: z.literal(true),
    rates: z.array(
      z
        .object({
          id: z.string().openapi({ example: 'express_delivery:express' }),
          label: z.string().openapi({ example: 'Express (bike) · 25 min' }),
          cost: pesosString.openapi({ description: 'Integer pesos as a string.', example: '3990' }),
          meta_data: z.object({ eta_minutes: minutes, vehicle_type: vehicleType, recommended: z.boolean() }),
        })
        .openapi({ description: 'The arguments of WooCommerce `WC_Shipping_Method::add_rate()`.' }),
    ),
  }),
);

export const carrierServiceResponseSchema = registry.register(
  'CarrierServiceRatesResponse',
  z
    .object({
      rates: z.array(
        z.object({
          service_name: z.string(),
          service_code: z.enum(['EXPRESS', 'BATCHED']),
          total_price: pesosString.openapi({ description: 'Subunits as a string: CLP × 100.', example: '399000' }),
          currency: z.literal('CLP'),
          description: z.string(),
          min_delivery_date: shopifyDate,
          max_delivery_date: shopifyDate,
        }),
      ),
    })
    .openapi({ description: 'Shopify CarrierService answer; `{"rates": []}` means "cannot ship there" (outside the area, too heavy, not Chile).' }),
);

export const erpRateResponseSchema = registry.register(
  'ErpRateResponse',
  z
    .object({
      success: z.literal(true),
      price: pesos,
      currency: z.literal('CLP'),
      estimated_days: z.number().int().min(0).openapi({ description: 'Whole days after today (0 = same day).' }),
      estimated_minutes: minutes,
      prep_time_mins: minutes,
      vehicle_type: vehicleType,
      error_message: z.literal(false),
      warning_message: z.literal(false),
    })
    .openapi({ description: 'Odoo `<provider>_rate_shipment` result.' }),
);

export const erpRateFailureSchema = registry.register(
  'ErpRateFailure',
  errorResponseSchema
    .extend({
      price: z.literal(0).optional(),
      error_message: z.string().optional(),
      warning_message: z.literal(false).optional(),
    })
    .openapi({
      description:
        "ErrorResponse plus Odoo's failure contract (price 0, error_message, warning_message false) when the rating itself " +
        'failed (validation, geocoding, capacity); authentication, body-parsing and rate-limit errors are plain ErrorResponse.',
    }),
);
