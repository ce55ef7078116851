import { z } from 'zod';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { AppError } from './errors.js';
import { INTEGRATION_NAMES, type Merchant, type MerchantSettings } from './types.js';

export const PREP_TIME_MAX_MINS = 240;

export const prepTimeSchema = z.number().int().min(0).max(PREP_TIME_MAX_MINS);

/** Change any of the merchant's settings; null clears the nullable ones. */
export const updateSettingsCommandSchema = z
  .strictObject({
    prepTimeMins: prepTimeSchema.optional(),
    address: z.string().trim().min(3).max(300).optional(),
    storefrontDomain: z
      .string()
      .trim()
      .toLowerCase()
      .max(253)
      .regex(/^(?!-)[a-z0-9-]{1,63}(\.(?!-)[a-z0-9-]{1,63})+$/, 'must be a host name such as shop.myshopify.com')
      .nullable()
      .optional(),
    integrationPlatform: z.enum(INTEGRATION_NAMES).nullable().optional(),
    webhookPayloadShape: z.enum(['event', 'flat']).optional(),
    webhookCourierLocation: z.boolean().optional(),
    sandboxSpeed: z.number().min(1).max(1000).nullable().optional(),
  })
  .refine((v) => Object.values(v).some((value) => value !== undefined), { message: 'at least one setting is required' });
export type UpdateSettingsCommand = z.output<typeof updateSettingsCommandSchema>;

export const DEFAULT_SETTINGS: MerchantSettings = {
  prepTimeMins: 0,
  storefrontDomain: null,
  integrationPlatform: null,
  webhookPayloadShape: 'event',
  webhookCourierLocation: false,
  sandboxSpeed: null,
};

export type MerchantService = ReturnType<typeof createMerchantService>;

export function createMerchantService(deps: { store: Store; clock: Clock; credentialsChanged?: (options: { merchantId: string }) => Promise<void> }) {
  const { store, clock } = deps;

  async function getMerchant(options: { merchantId: string }): Promise<Merchant> {
    const merchant = await store.merchants.findById(options.merchantId);
    if (!merchant) throw new AppError('MERCHANT_NOT_FOUND', 'Merchant not found');
    return merchant;
  }

  async function updateMerchantSettings(options: { merchantId: string; input: UpdateSettingsCommand }): Promise<Merchant> {
    const { input } = options;
    const settings: Partial<MerchantSettings> = {
      ...(input.prepTimeMins !== undefined && { prepTimeMins: input.prepTimeMins }),
      ...(input.storefrontDomain !== undefined && { storefrontDomain: input.storefrontDomain }),
      ...(input.integrationPlatform !== undefined && { integrationPlatform: input.integrationPlatform }),
      ...(input.webhookPayloadShape !== undefined && { webhookPayloadShape: input.webhookPayloadShape }),
      ...(input.webhookCourierLocation !== undefined && { webhookCourierLocation: input.webhookCourierLocation }),
      ...(input.sandboxSpeed !== undefined && { sandboxSpeed: input.sandboxSpeed }),
    };
    const patch = { settings, ...(input.address !== undefined && { address: input.address }) };
    const updated = await store.merchants.update(options.merchantId, patch, clock.now().toISOString());
    if (!updated) throw new AppError('MERCHANT_NOT_FOUND', 'Merchant not found');
    // Cached principals carry the merchant: other nodes must not keep serving the old settings.
    await deps.credentialsChanged?.({ merchantId: options.merchantId });
    return updated;
  }

  return { getMerchant, updateMerchantSettings };
}
