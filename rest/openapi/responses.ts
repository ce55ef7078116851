/**
 * Wire shapes of REST responses (what rest/presenters produce), for the OpenAPI document.
 * Request schemas are never defined here: they are the domain's own zod schemas.
 */
import { z } from 'zod';
import { INTEGRATION_NAMES, INTEGRATION_STATUSES, MERCHANT_STATUSES, MODES, type WebhookPayloadShape } from '../../src/domain/types.js';
import { registry } from './registry.js';

const timestamp = z.iso.datetime({ offset: true }).openapi({ example: '2025-01-31T14:05:00.000Z' });
const integrationName = z.enum(INTEGRATION_NAMES);

export const healthSchema = registry.register(
  'Health',
  z.object({
    success: z.boolean().openapi({ description: 'false when a required dependency is down (HTTP 503).' }),
    status: z.enum(['ok', 'degraded', 'down']),
    version: z.string().openapi({ example: 'v1.2.0' }),
    service: z.string().openapi({ example: 'express-delivery' }),
    timestamp,
    checks: z.record(z.string(), z.enum(['ok', 'down', 'disabled'])).openapi({ example: { store: 'ok', redis: 'disabled' } }),
  }),
);

export const merchantSettingsSchema = registry.register(
  'MerchantSettings',
  z.object({
    prep_time_mins: z.number().int().min(0).openapi({ description: 'Default preparation time, used when a quote or order gives none.' }),
    address: z.string().nullable(),
    storefront_domain: z.string().nullable().openapi({ example: 'shop.myshopify.com' }),
    integration_platform: integrationName.nullable(),
    webhook_payload_shape: z.enum(['event', 'flat'] as const satisfies readonly WebhookPayloadShape[]),
    webhook_courier_location: z.boolean(),
  }),
);

export const merchantSchema = registry.register(
  'Merchant',
  z.object({
    id: z.string(),
    name: z.string(),
    status: z.enum(MERCHANT_STATUSES),
    prep_time_mins: z.number().int().min(0),
    address: z.string().nullable(),
    integration_platform: integrationName.nullable(),
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
