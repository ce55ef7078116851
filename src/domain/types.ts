export type Mode = 'live' | 'test';
export const MODES = ['live', 'test'] as const;

export interface LatLng {
  lat: number;
  lng: number;
}

export type VehicleType = 'bike' | 'motorcycle' | 'car' | 'van';
export const VEHICLE_TYPES = ['bike', 'motorcycle', 'car', 'van'] as const;

export type MerchantStatus = 'active' | 'in_review' | 'suspended';
export const MERCHANT_STATUSES = ['active', 'in_review', 'suspended'] as const;

export type IntegrationName = 'plugin' | 'storefront' | 'erp';
export const INTEGRATION_NAMES = ['plugin', 'storefront', 'erp'] as const;

export type IntegrationStatus = 'pending_approval' | 'approved' | 'rejected';
export const INTEGRATION_STATUSES = ['pending_approval', 'approved', 'rejected'] as const;

export type WebhookPayloadShape = 'event' | 'flat';

export interface MerchantSettings {
  prepTimeMins: number;
  storefrontDomain: string | null;
  integrationPlatform: IntegrationName | null;
  webhookPayloadShape: WebhookPayloadShape;
  webhookCourierLocation: boolean;
}

export interface Merchant {
  id: string;
  name: string;
  status: MerchantStatus;
  address: string | null;
  integrations: Record<IntegrationName, IntegrationStatus>;
  settings: MerchantSettings;
  /** Per-merchant override of the per-key request limit; null uses the configured default. */
  rateLimitPerMin: number | null;
  createdAt: string;
  updatedAt: string;
}

export type ApiKeyStatus = 'active' | 'revoked';

export interface ApiKeyRecord {
  id: string;
  merchantId: string;
  mode: Mode;
  /** SHA-256 hex of the full key; the key itself is never stored. */
  hash: string;
  /** First characters of the key, safe to display ("ak_test_AbC1…"). */
  prefix: string;
  status: ApiKeyStatus;
  createdAt: string;
  revokedAt: string | null;
}

/** The merchant's API secret (whsec_…), encrypted at rest because signing needs the plain value. */
export interface MerchantSecretRecord {
  id: string;
  merchantId: string;
  ciphertext: string;
  createdAt: string;
  /** Set when a newer secret replaced it; it keeps signing until then (rotation overlap). */
  expiresAt: string | null;
}

export interface RegisteredUser {
  id: string;
  /** Normalised RUT: body digits, hyphen, check digit (`12345678-5`). */
  rut: string;
  name: string | null;
  phone: string | null;
  createdAt: string;
}

export type CourierDutyStatus = 'off_duty' | 'available' | 'busy';

export interface Courier {
  id: string;
  mode: Mode;
  name: string;
  phone: string;
  vehicle: VehicleType;
  plate: string;
  tokenHash: string;
  status: CourierDutyStatus;
  location: LatLng | null;
  locationAt: string | null;
  createdAt: string;
  updatedAt: string;
}
