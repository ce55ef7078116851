/** The REST wire form of the settings command (POST any subset, PATCH with prep_time_mins), mapped in one step; also the OpenAPI bodies. */
import { z } from 'zod';
import { prepTimeSchema, updateSettingsCommandSchema, type UpdateSettingsCommand } from '../../src/domain/merchants.js';
import { parseInput } from '../../src/domain/validation.js';

const settings = updateSettingsCommandSchema.shape;
const settingsFields = {
  prep_time_mins: settings.prepTimeMins,
  address: settings.address,
  storefront_domain: settings.storefrontDomain,
  integration_platform: settings.integrationPlatform,
  webhook_payload_shape: settings.webhookPayloadShape,
  webhook_courier_location: settings.webhookCourierLocation,
  sandbox_speed: settings.sandboxSpeed,
  tracking_show_items: settings.trackingShowItems.describe("Whether the customer's tracking page shows a short summary of the order's items (default true)."),
  failed_attempt_policy: settings.failedAttemptPolicy.describe('The failed-attempt policy of new orders that do not name one: retry, return (default) or dispose.'),
  storefront_shared_secret: settings.storefrontSharedSecret.describe(
    "Write-only: the storefront app's secret that signs its requests (Shopify's app secret). Never shown; a new value replaces it (the old one stays valid for 2 h), null removes it at once.",
  ),
};

/** POST /merchants/settings: any subset of the known settings, nothing else. */
export const merchantSettingsInputSchema = z
  .strictObject(settingsFields)
  .refine((v) => Object.keys(v).length > 0, { message: 'at least one setting is required' });

/** PATCH /merchants/settings: prep_time_mins is required (spec), other settings optional. */
export const merchantSettingsPatchSchema = z.strictObject(settingsFields).extend({ prep_time_mins: prepTimeSchema });

export function updateSettingsCommand(body: unknown, options: { requirePrepTime: boolean }): UpdateSettingsCommand {
  const b = parseInput(options.requirePrepTime ? merchantSettingsPatchSchema : merchantSettingsInputSchema, body);
  return {
    prepTimeMins: b.prep_time_mins, address: b.address, storefrontDomain: b.storefront_domain, integrationPlatform: b.integration_platform,
    webhookPayloadShape: b.webhook_payload_shape, webhookCourierLocation: b.webhook_courier_location, sandboxSpeed: b.sandbox_speed, trackingShowItems: b.tracking_show_items,
    failedAttemptPolicy: b.failed_attempt_policy, storefrontSharedSecret: b.storefront_shared_secret,
  };
}
