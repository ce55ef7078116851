import type {
  ApiKeyRecord,
  Courier,
  CourierDutyStatus,
  LatLng,
  IntegrationName,
  Merchant,
  MerchantSecretRecord,
  MerchantSettings,
  Mode,
  RegisteredUser,
} from '../domain/types.js';

/**
 * The persistence port. Every method is one atomic unit of work: adapters run it in a single
 * transaction (SQLite) or a single document write / session transaction (MongoDB).
 */
export interface Store {
  readonly kind: 'sqlite' | 'mongodb';
  merchants: MerchantRepository;
  apiKeys: ApiKeyRepository;
  users: UserRepository;
  couriers: CourierRepository;
  telemetry: TelemetryRepository;
  /** Throws when the backing database cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface NewMerchantBundle {
  merchant: Merchant;
  keys: ApiKeyRecord[];
  secret: MerchantSecretRecord;
}

/**
 * Fields to change. `integrations` and `settings` are merged key by key inside the same atomic
 * write, so two concurrent patches of different keys never undo each other.
 */
export type MerchantPatch = Partial<Pick<Merchant, 'name' | 'status' | 'address' | 'rateLimitPerMin'>> & {
  integrations?: Partial<Merchant['integrations']>;
  settings?: Partial<MerchantSettings>;
};

export interface MerchantRepository {
  /** Creates the merchant with its keys and secret, all or nothing. */
  create(bundle: NewMerchantBundle): Promise<void>;
  findById(id: string): Promise<Merchant | null>;
  /**
   * Applies the patch and returns the updated merchant, or null when it does not exist. Throws
   * AppError CONFLICT when the storefront domain belongs to another merchant.
   */
  update(id: string, patch: MerchantPatch, updatedAt: string): Promise<Merchant | null>;
  /** The merchant whose settings name this storefront domain (unique across merchants). */
  findByStorefrontDomain(domain: string): Promise<Merchant | null>;
  count(): Promise<number>;
  list(options: { limit: number; afterId?: string }): Promise<Merchant[]>;
  /** Secrets newest first, including ones still inside their rotation overlap. */
  listSecrets(merchantId: string): Promise<MerchantSecretRecord[]>;
  /** Adds a new secret and sets expiresAt on the previous current one, atomically. */
  rotateSecret(secret: MerchantSecretRecord, previousExpiresAt: string): Promise<void>;
}

export interface ApiKeyRepository {
  findByHash(hash: string): Promise<ApiKeyRecord | null>;
  listByMerchant(merchantId: string): Promise<ApiKeyRecord[]>;
  /** Revokes every active key of the merchant in that mode and inserts the replacement, atomically. */
  replace(key: ApiKeyRecord, revokedAt: string): Promise<number>;
  /** Revokes active keys of the merchant in that mode; returns how many were revoked. */
  revoke(options: { merchantId: string; mode: Mode; revokedAt: string }): Promise<number>;
}

export interface UserRepository {
  /** Inserts the user; returns false when the RUT is already registered. */
  insert(user: RegisteredUser): Promise<boolean>;
  findByRut(rut: string): Promise<RegisteredUser | null>;
}

export interface CourierRepository {
  insert(courier: Courier): Promise<void>;
  findById(id: string): Promise<Courier | null>;
  findByTokenHash(hash: string): Promise<Courier | null>;
  listByMode(mode: Mode): Promise<Courier[]>;
  /** Sets the duty status, optionally only when the current status is one of `from` (compare-and-set). */
  setStatus(options: { id: string; status: CourierDutyStatus; from?: CourierDutyStatus[]; updatedAt: string }): Promise<Courier | null>;
  setLocation(options: { id: string; location: LatLng; at: string }): Promise<void>;
}

/** Calls of one integration from one site, counted for administrative moderation. */
export interface IntegrationTelemetry {
  merchantId: string;
  mode: Mode;
  integration: IntegrationName;
  site: string | null;
  pluginVersion: string | null;
  userAgent: string | null;
  callCount: number;
  firstSeenAt: string;
  lastSeenAt: string;
}

export interface TelemetryRepository {
  /** Counts one call: creates the (merchant, mode, integration, site) row or bumps it, atomically. */
  record(call: { merchantId: string; mode: Mode; integration: IntegrationName; site: string | null; pluginVersion: string | null; userAgent: string | null; at: string }): Promise<void>;
  /** Rows of the merchant, most recently seen first. */
  listByMerchant(merchantId: string): Promise<IntegrationTelemetry[]>;
}
