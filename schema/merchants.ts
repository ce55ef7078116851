import { notificationCountriesOf } from '../src/domain/notifications/budget.js';
import type { MerchantPrincipal } from '../src/domain/auth.js';
import { AppError } from '../src/domain/errors.js';
import { INTEGRATION_NAMES, INTEGRATION_STATUSES, MERCHANT_STATUSES, MODES, type Merchant } from '../src/domain/types.js';
import { updateSettingsCommandSchema } from '../src/domain/merchants.js';
import { builder } from './builder.js';
import { FailedAttemptPolicyEnum } from './failed-attempts.js';
import { DEFAULT_FAILED_ATTEMPT_POLICY } from '../src/domain/orders/failed-attempts.js';
import { commandOf } from './commands.js';
import { IDEMPOTENCY_KEY_DESCRIPTION } from './idempotency.js';
import type { GraphQLContext } from './context.js';

export const ModeEnum = builder.enumType('Mode', { values: MODES });
export const MerchantStatusEnum = builder.enumType('MerchantStatus', { values: MERCHANT_STATUSES });
export const IntegrationEnum = builder.enumType('Integration', { values: INTEGRATION_NAMES });
export const IntegrationStatusEnum = builder.enumType('IntegrationStatus', { values: INTEGRATION_STATUSES });
const PayloadShapeEnum = builder.enumType('WebhookPayloadShape', { values: ['event', 'flat'] as const });

const IntegrationsRef = builder.objectRef<Merchant['integrations']>('Integrations').implement({
  fields: (t) => ({
    plugin: t.field({ type: IntegrationStatusEnum, resolve: (i) => i.plugin }),
    storefront: t.field({ type: IntegrationStatusEnum, resolve: (i) => i.storefront }),
    erp: t.field({ type: IntegrationStatusEnum, resolve: (i) => i.erp }),
  }),
});

const SettingsRef = builder.objectRef<Merchant>('MerchantSettings').implement({
  fields: (t) => ({
    prepTimeMins: t.int({ resolve: (m) => m.settings.prepTimeMins }),
    address: t.string({ nullable: true, resolve: (m) => m.address }),
    storefrontDomain: t.string({ nullable: true, resolve: (m) => m.settings.storefrontDomain }),
    integrationPlatform: t.field({ type: IntegrationEnum, nullable: true, resolve: (m) => m.settings.integrationPlatform }),
    webhookPayloadShape: t.field({ type: PayloadShapeEnum, resolve: (m) => m.settings.webhookPayloadShape }),
    webhookCourierLocation: t.boolean({ resolve: (m) => m.settings.webhookCourierLocation }),
    sandboxSpeed: t.float({ nullable: true, resolve: (m) => m.settings.sandboxSpeed ?? null }),
    trackingShowItems: t.boolean({
      description: "Whether the customer's tracking page shows a short summary of the order's items (default true).",
      resolve: (m) => m.settings.trackingShowItems !== false,
    }),
    failedAttemptPolicy: t.field({
      type: FailedAttemptPolicyEnum,
      description: 'The failed-attempt policy of new orders that do not name one (default return).',
      resolve: (m) => m.settings.failedAttemptPolicy ?? DEFAULT_FAILED_ATTEMPT_POLICY,
    }),
    storefrontSignatureConfigured: t.boolean({
      description: 'Whether a storefront shared secret is stored (the secret is write-only: never shown).',
      resolve: (m) => m.settings.storefrontSharedSecretSet === true,
    }),
  }),
});

export const MerchantRef = builder.objectRef<Merchant>('Merchant').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    status: t.field({ type: MerchantStatusEnum, resolve: (m) => m.status }),
    prepTimeMins: t.int({ resolve: (m) => m.settings.prepTimeMins }),
    address: t.string({ nullable: true, resolve: (m) => m.address }),
    integrationPlatform: t.field({ type: IntegrationEnum, nullable: true, resolve: (m) => m.settings.integrationPlatform }),
    integrations: t.field({ type: IntegrationsRef, resolve: (m) => m.integrations }),
    settings: t.field({ type: SettingsRef, resolve: (m) => m }),
    rateLimitPerMin: t.int({ resolve: (m, _a, ctx) => m.rateLimitPerMin ?? ctx.config.rateLimitPerMin }),
    notificationCountries: t.stringList({
      description: 'Country calling codes ("56") this merchant\'s live SMS and WhatsApp may reach (an operator approves others); Chile alone by default.',
      resolve: (m) => notificationCountriesOf(m),
    }),
    createdAt: t.field({ type: 'DateTime', resolve: (m) => m.createdAt }),
  }),
});

const ViewerRef = builder.objectRef<MerchantPrincipal>('Viewer').implement({
  fields: (t) => ({
    mode: t.field({ type: ModeEnum, resolve: (p) => p.mode }),
    merchant: t.field({ type: MerchantRef, resolve: (p) => p.merchant }),
  }),
});

/** The authenticated merchant, checked against the status rules at the given level. */
export function merchantOf(ctx: GraphQLContext, level: 'profile' | 'settings' | 'operate'): MerchantPrincipal {
  if (!ctx.merchant) throw new AppError('INVALID_API_KEY', 'API key missing or invalid');
  ctx.services.auth.assertMerchantAccess(ctx.merchant, { level });
  return ctx.merchant;
}

builder.queryFields((t) => ({
  viewer: t.field({
    type: ViewerRef,
    authScopes: { merchant: true },
    resolve: (_root, _args, ctx) => merchantOf(ctx, 'profile'),
  }),
  merchant: t.field({
    type: MerchantRef,
    authScopes: { merchant: true },
    resolve: (_root, _args, ctx) => merchantOf(ctx, 'profile').merchant,
  }),
}));

const SettingsInput = builder.inputType('MerchantSettingsInput', {
  fields: (t) => ({
    prepTimeMins: t.int(),
    address: t.string(),
    storefrontDomain: t.string(),
    integrationPlatform: t.field({ type: IntegrationEnum }),
    webhookPayloadShape: t.field({ type: PayloadShapeEnum }),
    webhookCourierLocation: t.boolean(),
    sandboxSpeed: t.float(),
    trackingShowItems: t.boolean({ description: "Whether the customer's tracking page shows a short summary of the order's items." }),
    failedAttemptPolicy: t.field({ type: FailedAttemptPolicyEnum, description: 'The failed-attempt policy of new orders that do not name one.' }),
    storefrontSharedSecret: t.string({ description: "Write-only: the storefront app's secret that signs its requests (Shopify's app secret); a new value replaces it, null removes it." }),
  }),
});

builder.mutationFields((t) => ({
  updateMerchantSettings: t.field({
    type: MerchantRef,
    authScopes: { merchant: true },
    errors: {},
    args: { input: t.arg({ type: SettingsInput, required: true }), idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY_DESCRIPTION }) },
    resolve: (_root, { input: given, idempotencyKey }, ctx) => {
      const principal = merchantOf(ctx, 'settings');
      const input = commandOf(updateSettingsCommandSchema, given);
      return ctx.services.merchants.updateMerchantSettings({ principal, input, idempotencyKey: idempotencyKey ?? undefined });
    },
  }),
}));
