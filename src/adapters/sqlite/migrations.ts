/**
 * Schema migrations, applied in order; PRAGMA user_version records how many have run.
 * Append only: never edit a migration that has shipped.
 */
export const MIGRATIONS: string[] = [
  `
  CREATE TABLE merchants (
    id TEXT PRIMARY KEY,
    doc TEXT NOT NULL
  );
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants(id),
    mode TEXT NOT NULL CHECK (mode IN ('live','test')),
    hash TEXT NOT NULL UNIQUE,
    prefix TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active','revoked')),
    created_at TEXT NOT NULL,
    revoked_at TEXT
  );
  CREATE INDEX api_keys_merchant ON api_keys (merchant_id, mode, status);
  CREATE TABLE merchant_secrets (
    id TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants(id),
    ciphertext TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT
  );
  CREATE INDEX merchant_secrets_merchant ON merchant_secrets (merchant_id, created_at);
  CREATE TABLE users (
    id TEXT PRIMARY KEY,
    rut TEXT NOT NULL UNIQUE,
    name TEXT,
    phone TEXT,
    created_at TEXT NOT NULL
  );
  CREATE TABLE couriers (
    id TEXT PRIMARY KEY,
    mode TEXT NOT NULL CHECK (mode IN ('live','test')),
    token_hash TEXT NOT NULL UNIQUE,
    status TEXT NOT NULL,
    doc TEXT NOT NULL
  );
  CREATE INDEX couriers_mode ON couriers (mode, status);
  `,
  `
  ALTER TABLE merchants ADD COLUMN storefront_domain TEXT;
  UPDATE merchants SET storefront_domain = json_extract(doc, '$.settings.storefrontDomain');
  CREATE UNIQUE INDEX merchants_storefront_domain ON merchants (storefront_domain) WHERE storefront_domain IS NOT NULL;
  CREATE TABLE integration_telemetry (
    merchant_id TEXT NOT NULL REFERENCES merchants(id),
    mode TEXT NOT NULL CHECK (mode IN ('live','test')),
    integration TEXT NOT NULL,
    site TEXT NOT NULL DEFAULT '',
    plugin_version TEXT,
    user_agent TEXT,
    call_count INTEGER NOT NULL,
    first_seen_at TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    PRIMARY KEY (merchant_id, mode, integration, site)
  );
  `,
];
