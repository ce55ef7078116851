import type { Merchant, Mode } from '../../src/domain/types.js';
import { DEFAULT_FAILED_ATTEMPT_POLICY } from '../../src/domain/orders/failed-attempts.js';

export function presentSettings(m: Merchant) {
  return {
    prep_time_mins: m.settings.prepTimeMins,
    address: m.address ?? '',
    storefront_domain: m.settings.storefrontDomain,
    integration_platform: m.settings.integrationPlatform ?? '',
    webhook_payload_shape: m.settings.webhookPayloadShape,
    webhook_courier_location: m.settings.webhookCourierLocation,
    sandbox_speed: m.settings.sandboxSpeed ?? null,
    tracking_show_items: m.settings.trackingShowItems !== false,
    failed_attempt_policy: m.settings.failedAttemptPolicy ?? DEFAULT_FAILED_ATTEMPT_POLICY,
    storefront_signature_configured: m.settings.storefrontSharedSecretSet === true,
  };
}

/** The spec's Merchant resource plus review status and the active configuration. The spec types address and integration_platform as strings: unset is "". */
export function presentMerchant(m: Merchant, mode: Mode, defaultRateLimit: number) {
  return {
    id: m.id,
    name: m.name,
    status: m.status,
    prep_time_mins: m.settings.prepTimeMins,
    address: m.address ?? '',
    integration_platform: m.settings.integrationPlatform ?? '',
    review_status: m.status === 'in_review' ? 'in_review' : 'approved',
    integrations: { ...m.integrations },
    settings: presentSettings(m),
    rate_limit_per_min: m.rateLimitPerMin ?? defaultRateLimit,
    mode,
    created_at: m.createdAt,
  };
}
