import type { EventBus } from '../ports/event-bus.js';
import type { Store } from '../ports/store.js';
import { isUnavailable } from '../ports/unavailable.js';
import { COURIER_TOKEN_PATTERN, hashToken, modeOfApiKey, safeEqual } from './credentials.js';
import { AppError } from './errors.js';
import type { ApiKeyRecord, Courier, IntegrationName, MemberRole, Merchant, Mode } from './types.js';

export interface MerchantPrincipal {
  kind: 'merchant';
  merchant: Merchant;
  mode: Mode;
  /** The budget's key: the API key's id, or `member:<id>` for a signed-in team member. */
  keyId: string;
  /** A team member signed in with a session cookie; absent for API keys, which act as owner. */
  member?: { id: string; email: string; role: MemberRole };
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

/** While the store cannot be reached, a key read this recently still admits its caller (quotes keep working). */
const STALE_IF_UNAVAILABLE_MS = 60_000;

export function createAuthService(deps: {
  store: Store;
  adminToken: string | undefined;
  /** Stores without a credentials version (MongoDB): how long a valid key is remembered; 0 = never. */
  cacheMs?: number;
  /** Carries credential changes to every node, whose caches then forget them at once. */
  bus?: EventBus;
  now?: () => number;
}) {
  const { store, adminToken } = deps;
  const cacheMs = deps.cacheMs ?? 0;
  const clockMs = deps.now ?? Date.now;

  /**
   * Keys seen valid, by hash, with the store's credentials version they were read at: a hit needs
   * only the version (a revocation or a merchant change moves it, from any process), not the two
   * lookups. Stores that cannot tell cheaply (MongoDB) answer null and are asked every time.
   */
  const validKeys = new Map<string, { version: string; key: ApiKeyRecord; merchant: Merchant }>();

  /**
   * Without a credentials version (MongoDB) keys are remembered for `cacheMs`, under a generation
   * that every credential change (a bus message from any node) moves: a revoked key is refused at
   * once on every node the message reaches, and after `cacheMs` at worst.
   */
  const timedKeys = new Map<string, { readAt: number; key: ApiKeyRecord; merchant: Merchant }>();
  let generation = 0;
  deps.bus?.subscribe((message) => {
    if (message.type !== 'credentials.changed') return;
    generation++;
    timedKeys.clear();
  });

  async function lookUpKey(hash: string): Promise<{ key: ApiKeyRecord; merchant: Merchant } | null> {
    const key = await store.apiKeys.findByHash(hash);
    if (!key || key.status !== 'active') return null;
    const merchant = await store.merchants.findById(key.merchantId);
    return merchant ? { key, merchant } : null;
  }

  async function findActiveKeyTimed(hash: string): Promise<{ key: ApiKeyRecord; merchant: Merchant } | null> {
    const now = clockMs();
    const cached = timedKeys.get(hash);
    if (cached && now - cached.readAt <= cacheMs) return cached;
    const readIn = generation;
    let found;
    try {
      found = await lookUpKey(hash);
    } catch (error) {
      if (cached && isUnavailable(error) && now - cached.readAt <= STALE_IF_UNAVAILABLE_MS) return cached;
      throw error;
    }
    if (found && readIn === generation) {
      if (timedKeys.size >= MAX_CACHED_KEYS) timedKeys.clear();
      timedKeys.set(hash, { readAt: now, key: found.key, merchant: deepFreeze(found.merchant) });
    } else timedKeys.delete(hash);
    return found;
  }

  async function findActiveKey(hash: string): Promise<{ key: ApiKeyRecord; merchant: Merchant } | null> {
    // Read before the lookups: a change committed meanwhile leaves the entry under an older version.
    const version = store.credentialsVersion();
    if (version === null && cacheMs > 0) return findActiveKeyTimed(hash);
    const cached = version === null ? undefined : validKeys.get(hash);
    if (cached && cached.version === version) return cached;
    const found = await lookUpKey(hash);
    if (!found) return null;
    if (version !== null) {
      if (validKeys.size >= MAX_CACHED_KEYS) validKeys.clear();
      validKeys.set(hash, { version, key: found.key, merchant: deepFreeze(found.merchant) });
    }
    return found;
  }

  /** Tells every node (this one at once) that the merchant's credentials or profile changed. */
  async function credentialsChanged(options: { merchantId: string }): Promise<void> {
    generation++;
    timedKeys.clear();
    await deps.bus?.publish({ type: 'credentials.changed', merchantId: options.merchantId, at: new Date(clockMs()).toISOString() });
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

  return { authenticateApiKey, assertMerchantAccess, authenticateAdmin, authenticateCourier, credentialsChanged };
}
