import { z } from 'zod';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { SecretBox } from './credentials.js';
import { AppError } from './errors.js';
import type { MerchantPrincipal } from './auth.js';
import { assertPermitted } from './members/roles.js';
import { merchantScope, type IdempotencyService, type IdempotentCall } from './idempotency.js';
import { FAILED_ATTEMPT_POLICIES, INTEGRATION_NAMES, type Merchant, type MerchantSettings } from './types.js';

export const PREP_TIME_MAX_MINS = 240;

export const prepTimeSchema = z.number().int().min(0).max(PREP_TIME_MAX_MINS);

/**
 * After a new storefront secret is stored, the one it replaced is still accepted this long: Shopify
 * may take up to an hour after a rotation to start signing with the new secret.
 */
export const STOREFRONT_SECRET_OVERLAP_MS = 2 * 3_600_000;

/** A Shopify app's client secret is 32 hex characters, or `shpss_` + 32 hex; other platforms' are similar tokens. */
const storefrontSecretSchema = z
  .string()
  .min(16, 'must be at least 16 characters')
  .max(256, 'must be at most 256 characters')
  .regex(/^[\x21-\x7E]+$/, 'must be printable ASCII without spaces');

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
    trackingShowItems: z.boolean().optional(),
    failedAttemptPolicy: z.enum(FAILED_ATTEMPT_POLICIES).optional(),
    /** Write-only: the storefront app's secret (Shopify signs with it); null removes it. */
    storefrontSharedSecret: storefrontSecretSchema.nullable().optional(),
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
  trackingShowItems: true,
};

export type MerchantService = ReturnType<typeof createMerchantService>;

/** The operation of updateMerchantSettings' idempotency records. */
export const UPDATE_SETTINGS = 'merchants.settings';

export function createMerchantService(deps: {
  store: Store;
  clock: Clock;
  secretBox: SecretBox;
  credentialsChanged?: (options: { merchantId: string }) => Promise<void>;
  idempotency: IdempotencyService;
}) {
  const { store, clock, secretBox, idempotency } = deps;

  async function getMerchant(options: { merchantId: string }): Promise<Merchant> {
    const merchant = await store.merchants.findById(options.merchantId);
    if (!merchant) throw new AppError('MERCHANT_NOT_FOUND', 'Merchant not found');
    return merchant;
  }

  /** The merchant's own change (an owner, or an API key): settings are the owner's to manage. */
  async function updateMerchantSettings(options: { principal: MerchantPrincipal; input: UpdateSettingsCommand } & IdempotentCall): Promise<Merchant> {
    const { principal, input } = options;
    return idempotency.runCommand(options, { scope: merchantScope(principal, UPDATE_SETTINGS), request: { input } }, async () => {
      assertPermitted(principal, 'manage');
      return configureMerchant({ merchantId: principal.merchant.id, input });
    });
  }

  /** Settings written by the service itself (the demo seed), not on a caller's behalf. */
  async function configureMerchant(options: { merchantId: string; input: UpdateSettingsCommand }): Promise<Merchant> {
    const { input } = options;
    const settings: Partial<MerchantSettings> = {
      ...(input.prepTimeMins !== undefined && { prepTimeMins: input.prepTimeMins }),
      ...(input.storefrontDomain !== undefined && { storefrontDomain: input.storefrontDomain }),
      ...(input.integrationPlatform !== undefined && { integrationPlatform: input.integrationPlatform }),
      ...(input.webhookPayloadShape !== undefined && { webhookPayloadShape: input.webhookPayloadShape }),
      ...(input.webhookCourierLocation !== undefined && { webhookCourierLocation: input.webhookCourierLocation }),
      ...(input.sandboxSpeed !== undefined && { sandboxSpeed: input.sandboxSpeed }),
      ...(input.trackingShowItems !== undefined && { trackingShowItems: input.trackingShowItems }),
      ...(input.failedAttemptPolicy !== undefined && { failedAttemptPolicy: input.failedAttemptPolicy }),
    };
    const patch = { settings, ...(input.address !== undefined && { address: input.address }) };
    const at = clock.now().toISOString();
    let updated = await store.merchants.update(options.merchantId, patch, at);
    if (updated && input.storefrontSharedSecret !== undefined) {
      // Sealed like the API secret. Replacing it is the rotation; removing it revokes it at once.
      const sealed = input.storefrontSharedSecret === null ? null : secretBox.seal(input.storefrontSharedSecret);
      const previousExpiresAt = new Date(Date.parse(at) + STOREFRONT_SECRET_OVERLAP_MS).toISOString();
      updated = await store.merchants.setStorefrontSecret({ merchantId: options.merchantId, sealed, updatedAt: at, previousExpiresAt });
    }
    if (!updated) throw new AppError('MERCHANT_NOT_FOUND', 'Merchant not found');
    // Cached principals carry the merchant: other nodes must not keep serving the old settings.
    await deps.credentialsChanged?.({ merchantId: options.merchantId });
    return updated;
  }

  return { getMerchant, updateMerchantSettings, configureMerchant };
}
