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
];
