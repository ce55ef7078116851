import { z } from 'zod';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { AppError } from './errors.js';
import { parseInput } from './validation.js';
import { INTEGRATION_NAMES, type Merchant, type MerchantSettings } from './types.js';

export const PREP_TIME_MAX_MINS = 240;

export const prepTimeSchema = z.number().int().min(0).max(PREP_TIME_MAX_MINS);

const settingsFields = {
  prep_time_mins: prepTimeSchema.optional(),
  address: z.string().trim().min(3).max(300).optional(),
  storefront_domain: z
    .string()
    .trim()
    .toLowerCase()
    .max(253)
    .regex(/^(?!-)[a-z0-9-]{1,63}(\.(?!-)[a-z0-9-]{1,63})+$/, 'must be a host name such as shop.myshopify.com')
    .nullable()
    .optional(),
  integration_platform: z.enum(INTEGRATION_NAMES).nullable().optional(),
  webhook_payload_shape: z.enum(['event', 'flat']).optional(),
  webhook_courier_location: z.boolean().optional(),
  sandbox_speed: z.number().min(1).max(1000).nullable().optional(),
};

/** POST /merchants/settings: any subset of the known settings, nothing else. */
export const merchantSettingsInputSchema = z
  .strictObject(settingsFields)
  .refine((v) => Object.keys(v).length > 0, { message: 'at least one setting is required' });

/** PATCH /merchants/settings: prep_time_mins is required (spec), other settings optional. */
export const merchantSettingsPatchSchema = z.strictObject(settingsFields).extend({ prep_time_mins: prepTimeSchema });

export type MerchantSettingsInput = z.output<typeof merchantSettingsInputSchema>;

export const DEFAULT_SETTINGS: MerchantSettings = {
  prepTimeMins: 0,
  storefrontDomain: null,
  integrationPlatform: null,
  webhookPayloadShape: 'event',
  webhookCourierLocation: false,
  sandboxSpeed: null,
};

export type MerchantService = ReturnType<typeof createMerchantService>;

export function createMerchantService(deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;

  async function getMerchant(options: { merchantId: string }): Promise<Merchant> {
    const merchant = await store.merchants.findById(options.merchantId);
    if (!merchant) throw new AppError('MERCHANT_NOT_FOUND', 'Merchant not found');
    return merchant;
  }

  async function updateMerchantSettings(options: {
    merchantId: string;
    input: unknown;
    requirePrepTime?: boolean;
  }): Promise<Merchant> {
    const schema = options.requirePrepTime ? merchantSettingsPatchSchema : merchantSettingsInputSchema;
    const input = parseInput(schema, options.input);
    const settings: Partial<MerchantSettings> = {
      ...(input.prep_time_mins !== undefined && { prepTimeMins: input.prep_time_mins }),
      ...(input.storefront_domain !== undefined && { storefrontDomain: input.storefront_domain }),
      ...(input.integration_platform !== undefined && { integrationPlatform: input.integration_platform }),
      ...(input.webhook_payload_shape !== undefined && { webhookPayloadShape: input.webhook_payload_shape }),
      ...(input.webhook_courier_location !== undefined && { webhookCourierLocation: input.webhook_courier_location }),
      ...(input.sandbox_speed !== undefined && { sandboxSpeed: input.sandbox_speed }),
    };
    const patch = { settings, ...(input.address !== undefined && { address: input.address }) };
    const updated = await store.merchants.update(options.merchantId, patch, clock.now().toISOString());
    if (!updated) throw new AppError('MERCHANT_NOT_FOUND', 'Merchant not found');
    return updated;
  }

  return { getMerchant, updateMerchantSettings };
}
