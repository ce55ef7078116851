import { merchantSettingsInputSchema, merchantSettingsPatchSchema } from '../../wire/merchants.js';
import { registerEndpoint } from '../registry.js';
import { merchantMeResponseSchema, merchantSettingsUpdatedSchema } from '../responses.js';

registerEndpoint({
  method: 'get',
  path: '/merchants/me',
  operationId: 'getMerchantProfile',
  summary: 'The calling merchant',
  description: 'Profile, review status, integrations and active settings. Allowed for suspended merchants too.',
  tags: ['Merchants'],
  auth: 'apiKey',
  access: 'profile',
  responses: { 200: { description: 'The merchant', schema: merchantMeResponseSchema } },
});

registerEndpoint({
  method: 'post',
  path: '/merchants/settings',
  idempotent: true,
  operationId: 'updateMerchantSettings',
  summary: 'Update settings (any subset)',
  description: 'Sets any non-empty subset of the settings; unknown fields are refused.',
  tags: ['Merchants'],
  auth: 'apiKey',
  access: 'settings',
  body: merchantSettingsInputSchema,
  bodyExample: { storefront_domain: 'my-shop.myshopify.com', webhook_payload_shape: 'event' },
  responses: { 200: { description: 'Settings updated', schema: merchantSettingsUpdatedSchema } },
  // Another merchant already holds the storefront_domain.
  errors: ['CONFLICT'],
});

registerEndpoint({
  method: 'patch',
  path: '/merchants/settings',
  idempotent: true,
  operationId: 'patchMerchantSettings',
  summary: 'Update settings (prep_time_mins required)',
  description: 'As POST, with `prep_time_mins` required.',
  tags: ['Merchants'],
  auth: 'apiKey',
  access: 'settings',
  body: merchantSettingsPatchSchema,
  bodyExample: { prep_time_mins: 15 },
  responses: { 200: { description: 'Settings updated', schema: merchantSettingsUpdatedSchema } },
  // Another merchant already holds the storefront_domain.
  errors: ['CONFLICT'],
});
