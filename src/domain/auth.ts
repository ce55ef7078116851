import type { Store } from '../ports/store.js';
import { COURIER_TOKEN_PATTERN, hashToken, modeOfApiKey, safeEqual } from './credentials.js';
import { AppError } from './errors.js';
import type { Courier, IntegrationName, Merchant, Mode } from './types.js';

export interface MerchantPrincipal {
  kind: 'merchant';
  merchant: Merchant;
  mode: Mode;
  keyId: string;
}

export interface CourierPrincipal {
  kind: 'courier';
  courier: Courier;
}

/** How far a merchant's status lets a request go. */
export type AccessLevel = 'profile' | 'settings' | 'operate';

export type AuthService = ReturnType<typeof createAuthService>;

export function createAuthService(deps: { store: Store; adminToken: string | undefined }) {
  const { store, adminToken } = deps;

  /** Resolves an API key to its merchant and mode; every failure is the same 401. */
  async function authenticateApiKey(options: { apiKey: string | undefined; testModeHeader?: string | undefined }): Promise<MerchantPrincipal> {
    // Built only on failure: capturing an Error's stack costs more than the whole key lookup.
    const invalid = () => new AppError('INVALID_API_KEY', 'API key missing, invalid or revoked');
    const mode = options.apiKey ? modeOfApiKey(options.apiKey) : null;
    if (!options.apiKey || !mode) throw invalid();
    const key = await store.apiKeys.findByHash(hashToken(options.apiKey));
    if (!key || key.status !== 'active' || key.mode !== mode) throw invalid();
    const merchant = await store.merchants.findById(key.merchantId);
    if (!merchant) throw invalid();
    if (options.testModeHeader?.trim().toLowerCase() === 'true' && mode === 'live') {
      throw new AppError('TEST_MODE_MISMATCH', 'X-Test-Mode: true was sent with a live key; use a test key (ak_test_…) for the sandbox');
    }
    return { kind: 'merchant', merchant, mode, keyId: key.id };
  }

  /**
   * Merchant status rules: suspended merchants may only read their profile; merchants in review
   * may use the sandbox and their profile/settings, not live operations; integration endpoints
   * also need that integration approved.
   */
  function assertMerchantAccess(principal: MerchantPrincipal, options: { level: AccessLevel; integration?: IntegrationName }): void {
    const { merchant, mode } = principal;
    if (merchant.status === 'suspended' && options.level !== 'profile') {
      throw new AppError('ACCOUNT_SUSPENDED', 'This merchant account is suspended');
    }
    if (merchant.status === 'in_review' && mode === 'live' && options.level === 'operate') {
      throw new AppError('INTEGRATION_IN_REVIEW', 'This merchant account is in review; live operations are available after approval');
    }
    if (options.integration && merchant.integrations[options.integration] !== 'approved') {
      throw new AppError('INTEGRATION_IN_REVIEW', `The ${options.integration} integration is awaiting administrative approval`);
    }
  }

  function authenticateAdmin(options: { token: string | undefined }): void {
    if (!adminToken || !options.token || !safeEqual(hashToken(options.token), hashToken(adminToken))) {
      throw new AppError('INVALID_ADMIN_TOKEN', 'Admin token missing or invalid');
    }
  }

  async function authenticateCourier(options: { token: string | undefined }): Promise<CourierPrincipal> {
    if (!options.token || !COURIER_TOKEN_PATTERN.test(options.token)) {
      throw new AppError('INVALID_COURIER_TOKEN', 'Courier token missing or invalid');
    }
    const courier = await store.couriers.findByTokenHash(hashToken(options.token));
    if (!courier) throw new AppError('INVALID_COURIER_TOKEN', 'Courier token missing or invalid');
    return { kind: 'courier', courier };
  }

  return { authenticateApiKey, assertMerchantAccess, authenticateAdmin, authenticateCourier };
}
