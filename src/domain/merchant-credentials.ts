import { z } from 'zod';
import type { Store } from '../ports/store.js';
import type { AdminService } from './admin.js';
import type { MerchantPrincipal } from './auth.js';
import { assertPermitted } from './members/roles.js';
import { MODES, type ApiKeyRecord, type Mode } from './types.js';

export const rotateApiSecretCommandSchema = z.strictObject({ overlapHours: z.number().min(0).max(168).default(24) });
export type RotateApiSecretCommand = z.output<typeof rotateApiSecretCommandSchema>;
export const keyModeSchema = z.enum(MODES);

export type MerchantCredentialService = ReturnType<typeof createMerchantCredentialService>;

/**
 * A merchant's own API keys and signing secret, from the API (the console): the admin operations,
 * scoped to the caller's merchant and allowed to owners only (API keys act as owner). Listing the
 * keys (prefixes, never the keys) is open to every role.
 */
export function createMerchantCredentialService(deps: { admin: AdminService; store: Store }) {
  const { admin, store } = deps;

  async function listApiKeys(options: { principal: MerchantPrincipal }): Promise<ApiKeyRecord[]> {
    assertPermitted(options.principal, 'read');
    return store.apiKeys.listByMerchant(options.principal.merchant.id);
  }

  /** A new key for the mode, shown once; the mode's previous keys stop working at once. */
  async function rotateApiKey(options: { principal: MerchantPrincipal; mode: Mode }) {
    assertPermitted(options.principal, 'manage');
    return admin.rotateApiKey({ input: { merchantId: options.principal.merchant.id, mode: options.mode } });
  }

  async function revokeApiKeys(options: { principal: MerchantPrincipal; mode: Mode }) {
    assertPermitted(options.principal, 'manage');
    return admin.revokeApiKeys({ input: { merchantId: options.principal.merchant.id, mode: options.mode } });
  }

  /** A new signing secret, shown once; the previous one keeps signing for the overlap. */
  async function rotateApiSecret(options: { principal: MerchantPrincipal; input: RotateApiSecretCommand }) {
    assertPermitted(options.principal, 'manage');
    return admin.rotateApiSecret({ input: { merchantId: options.principal.merchant.id, overlapHours: options.input.overlapHours } });
  }

  return { listApiKeys, rotateApiKey, revokeApiKeys, rotateApiSecret };
}
