import type { Store } from '../ports/store.js';
import { COURIER_TOKEN_PATTERN, hashToken, modeOfApiKey, safeEqual } from './credentials.js';
import { AppError } from './errors.js';
import type { ApiKeyRecord, Courier, IntegrationName, Merchant, Mode } from './types.js';

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

/** Built only on failure: capturing an Error's stack costs more than the whole key lookup. */
const invalid = () => new AppError('INVALID_API_KEY', 'API key missing, invalid or revoked');

/** Bounds the valid-key cache; past it the cache starts over (a miss only costs the lookups). */
const MAX_CACHED_KEYS = 10_000;

/** Cached merchants are shared by every request that presents the key: nobody may change them. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export function createAuthService(deps: { store: Store; adminToken: string | undefined }) {
  const { store, adminToken } = deps;

  /**
   * Keys seen valid, by hash, with the store's credentials version they were read at: a hit needs
   * only the version (a revocation or a merchant change moves it, from any process), not the two
   * lookups. Stores that cannot tell cheaply (MongoDB) answer null and are asked every time.
   */
  const validKeys = new Map<string, { version: string; key: ApiKeyRecord; merchant: Merchant }>();

  async function findActiveKey(hash: string): Promise<{ key: ApiKeyRecord; merchant: Merchant } | null> {
    // Read before the lookups: a change committed meanwhile leaves the entry under an older version.
    const version = store.credentialsVersion();
    const cached = version === null ? undefined : validKeys.get(hash);
    if (cached && cached.version === version) return cached;
    const key = await store.apiKeys.findByHash(hash);
    if (!key || key.status !== 'active') return null;
    const merchant = await store.merchants.findById(key.merchantId);
    if (!merchant) return null;
    if (version !== null) {
      if (validKeys.size >= MAX_CACHED_KEYS) validKeys.clear();
      validKeys.set(hash, { version, key, merchant: deepFreeze(merchant) });
    }
    return { key, merchant };
  }

  /** Resolves an API key to its merchant and mode; every failure is the same 401. */
  async function authenticateApiKey(options: { apiKey: string | undefined; testModeHeader?: string | undefined }): Promise<MerchantPrincipal> {
    const mode = options.apiKey ? modeOfApiKey(options.apiKey) : null;
    if (!options.apiKey || !mode) throw invalid();
    const found = await findActiveKey(hashToken(options.apiKey));
    if (!found || found.key.mode !== mode) throw invalid();
    if (options.testModeHeader?.trim().toLowerCase() === 'true' && mode === 'live') {
      throw new AppError('TEST_MODE_MISMATCH', 'X-Test-Mode: true was sent with a live key; use a test key (ak_test_…) for the sandbox');
    }
    return { kind: 'merchant', merchant: found.merchant, mode, keyId: found.key.id };
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
    if (!courier || courier.accountStatus !== 'active') throw new AppError('INVALID_COURIER_TOKEN', 'Courier token missing or invalid');
    return { kind: 'courier', courier };
  }

  return { authenticateApiKey, assertMerchantAccess, authenticateAdmin, authenticateCourier };
}
