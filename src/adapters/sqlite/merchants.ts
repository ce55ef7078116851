import { AppError } from '../../domain/errors.js';
import type { Merchant, MerchantSecretRecord } from '../../domain/types.js';
import type { MerchantPatch, MerchantRepository, NewMerchantBundle } from '../../ports/store.js';
import type { SqliteDatabase } from './database.js';

interface SecretRow {
  id: string;
  merchant_id: string;
  ciphertext: string;
  created_at: string;
  expires_at: string | null;
  signing_key: string | null;
}

const toSecret = (r: SecretRow): MerchantSecretRecord => ({
  id: r.id,
  merchantId: r.merchant_id,
  ciphertext: r.ciphertext,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  signingKey: r.signing_key,
});

/** `onWrite` runs after every change to a merchant (the store's credentials version counts them). */
export function createSqliteMerchantRepository(db: SqliteDatabase, onWrite: () => void): MerchantRepository {
  const insertMerchant = db.prepare('INSERT INTO merchants (id, doc, storefront_domain) VALUES (?, ?, ?)');
  const insertKey = db.prepare(
    `INSERT INTO api_keys (id, merchant_id, mode, hash, prefix, status, created_at, revoked_at)
     VALUES (@id, @merchantId, @mode, @hash, @prefix, @status, @createdAt, @revokedAt)`,
  );
  const insertSecret = db.prepare(
    'INSERT INTO merchant_secrets (id, merchant_id, ciphertext, created_at, expires_at, signing_key) VALUES (@id, @merchantId, @ciphertext, @createdAt, @expiresAt, @signingKey)',
  );
  const secretRow = (s: MerchantSecretRecord) => Object.assign({}, s, { signingKey: s.signingKey ?? null });
  const fillSigningKey = db.prepare('UPDATE merchant_secrets SET signing_key = ? WHERE id = ? AND signing_key IS NULL');
  const signingKeyOf = db.prepare<[string], { signing_key: string | null }>('SELECT signing_key FROM merchant_secrets WHERE id = ?');
  const selectById = db.prepare<[string], { doc: string }>('SELECT doc FROM merchants WHERE id = ?');
  const updateDoc = db.prepare('UPDATE merchants SET doc = ?, storefront_domain = ? WHERE id = ?');
  const selectByDomain = db.prepare<[string], { doc: string }>('SELECT doc FROM merchants WHERE storefront_domain = ?');
  const countAll = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM merchants');
  const NAME = "lower(json_extract(doc, '$.name'))";
  const byIdPrefix = db.prepare<[string, string, number], { doc: string }>('SELECT doc FROM merchants WHERE id >= ? AND id < ? ORDER BY id LIMIT ?');
  const byNamePrefix = db.prepare<[string, string, number], { doc: string }>(`SELECT doc FROM merchants WHERE ${NAME} >= ? AND ${NAME} < ? ORDER BY ${NAME}, id LIMIT ?`);
  const listPage = db.prepare<[string, number], { doc: string }>('SELECT doc FROM merchants WHERE id > ? ORDER BY id LIMIT ?');
  const selectSecrets = db.prepare<[string], SecretRow>(
    'SELECT * FROM merchant_secrets WHERE merchant_id = ? ORDER BY created_at DESC, id DESC',
  );
  const expireCurrent = db.prepare(
    'UPDATE merchant_secrets SET expires_at = ? WHERE merchant_id = ? AND expires_at IS NULL',
  );

  const create = db.transaction((bundle: NewMerchantBundle) => {
    insertMerchant.run(bundle.merchant.id, JSON.stringify(bundle.merchant), bundle.merchant.settings.storefrontDomain);
    for (const key of bundle.keys) insertKey.run(key);
    insertSecret.run(secretRow(bundle.secret));
  });

  const update = db.transaction((id: string, patch: MerchantPatch, updatedAt: string): Merchant | null => {
    const row = selectById.get(id);
    if (!row) return null;
    const current = JSON.parse(row.doc) as Merchant;
    const next: Merchant = Object.assign({}, current, patch, {
      integrations: { ...current.integrations, ...patch.integrations },
      settings: { ...current.settings, ...patch.settings },
      updatedAt,
    });
    try {
      updateDoc.run(JSON.stringify(next), next.settings.storefrontDomain, id);
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
        throw new AppError('CONFLICT', 'That storefront domain is registered to another merchant');
      }
      throw error;
    }
    return next;
  });

  const selectStorefrontSecret = db.prepare<[string], { ciphertext: string; previous_ciphertext: string | null; previous_expires_at: string | null }>(
    'SELECT ciphertext, previous_ciphertext, previous_expires_at FROM merchant_storefront_secrets WHERE merchant_id = ?',
  );
  // The right-hand sides read the row as it was: the current secret becomes the previous one.
  const upsertStorefrontSecret = db.prepare(
    `INSERT INTO merchant_storefront_secrets (merchant_id, ciphertext, updated_at) VALUES (@id, @sealed, @updatedAt)
     ON CONFLICT (merchant_id) DO UPDATE SET previous_ciphertext = ciphertext, previous_expires_at = @previousExpiresAt,
       ciphertext = excluded.ciphertext, updated_at = excluded.updated_at`,
  );
  const deleteStorefrontSecret = db.prepare('DELETE FROM merchant_storefront_secrets WHERE merchant_id = ?');
  const setStorefrontSecret = db.transaction((o: { merchantId: string; sealed: string | null; updatedAt: string; previousExpiresAt: string }): Merchant | null => {
    const merchant = update(o.merchantId, { settings: { storefrontSharedSecretSet: o.sealed !== null } }, o.updatedAt);
    if (!merchant) return null;
    if (o.sealed === null) deleteStorefrontSecret.run(o.merchantId);
    else upsertStorefrontSecret.run({ id: o.merchantId, sealed: o.sealed, updatedAt: o.updatedAt, previousExpiresAt: o.previousExpiresAt });
    return merchant;
  });

  const rotate = db.transaction((secret: MerchantSecretRecord, previousExpiresAt: string) => {
    expireCurrent.run(previousExpiresAt, secret.merchantId);
    insertSecret.run(secretRow(secret));
  });

  return {
    async create(bundle) {
      create(bundle);
      onWrite();
    },
    async findById(id) {
      const row = selectById.get(id);
      return row ? (JSON.parse(row.doc) as Merchant) : null;
    },
    async update(id, patch, updatedAt) {
      const updated = update.immediate(id, patch, updatedAt);
      onWrite();
      return updated;
    },
    async findByStorefrontDomain(domain) {
      const row = selectByDomain.get(domain);
      return row ? (JSON.parse(row.doc) as Merchant) : null;
    },
    async count() {
      return countAll.get()!.n;
    },
    async search({ idPrefix, namePrefix, limit }) {
      if (limit <= 0) return [];
      const rows = [...byIdPrefix.all(idPrefix, `${idPrefix}\uffff`, limit), ...byNamePrefix.all(namePrefix, `${namePrefix}\uffff`, limit)];
      const found = new Map(rows.map((r) => JSON.parse(r.doc) as Merchant).map((m) => [m.id, m]));
      return [...found.values()].slice(0, limit);
    },
    async list({ limit, afterId }) {
      return listPage.all(afterId ?? '', limit).map((r) => JSON.parse(r.doc) as Merchant);
    },
    async listSecrets(merchantId) {
      return selectSecrets.all(merchantId).map(toSecret);
    },
    async rotateSecret(secret, previousExpiresAt) {
      rotate.immediate(secret, previousExpiresAt);
    },
    async setSigningKey({ secretId, sealed }) {
      fillSigningKey.run(sealed, secretId);
      return signingKeyOf.get(secretId)?.signing_key ?? sealed;
    },
    async findStorefrontSecret(merchantId) {
      const row = selectStorefrontSecret.get(merchantId);
      return row ? { current: row.ciphertext, previous: row.previous_ciphertext, previousExpiresAt: row.previous_expires_at } : null;
    },
    async setStorefrontSecret(options) {
      const merchant = setStorefrontSecret.immediate(options);
      onWrite();
      return merchant;
    },
  };
}
