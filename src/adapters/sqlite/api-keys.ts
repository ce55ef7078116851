import type { ApiKeyRecord, Mode } from '../../domain/types.js';
import type { ApiKeyRepository } from '../../ports/store.js';
import type { SqliteDatabase } from './database.js';

interface KeyRow {
  id: string;
  merchant_id: string;
  mode: Mode;
  hash: string;
  prefix: string;
  status: ApiKeyRecord['status'];
  created_at: string;
  revoked_at: string | null;
}

const toKey = (r: KeyRow): ApiKeyRecord => ({
  id: r.id,
  merchantId: r.merchant_id,
  mode: r.mode,
  hash: r.hash,
  prefix: r.prefix,
  status: r.status,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

/** `onWrite` runs after every change to a key (the store's credentials version counts them). */
export function createSqliteApiKeyRepository(db: SqliteDatabase, onWrite: () => void): ApiKeyRepository {
  const byHash = db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE hash = ?');
  const byMerchant = db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE merchant_id = ? ORDER BY created_at, id');
  const revokeActive = db.prepare(
    "UPDATE api_keys SET status = 'revoked', revoked_at = ? WHERE merchant_id = ? AND mode = ? AND status = 'active'",
  );
  const insert = db.prepare(
    `INSERT INTO api_keys (id, merchant_id, mode, hash, prefix, status, created_at, revoked_at)
     VALUES (@id, @merchantId, @mode, @hash, @prefix, @status, @createdAt, @revokedAt)`,
  );
  const replace = db.transaction((key: ApiKeyRecord, revokedAt: string) => {
    const revoked = revokeActive.run(revokedAt, key.merchantId, key.mode).changes;
    insert.run(key);
    return revoked;
  });

  return {
    async findByHash(hash) {
      const row = byHash.get(hash);
      return row ? toKey(row) : null;
    },
    async listByMerchant(merchantId) {
      return byMerchant.all(merchantId).map(toKey);
    },
    async replace(key, revokedAt) {
      const revoked = replace.immediate(key, revokedAt);
      onWrite();
      return revoked;
    },
    async revoke({ merchantId, mode, revokedAt }) {
      const revoked = revokeActive.run(revokedAt, merchantId, mode).changes;
      onWrite();
      return revoked;
    },
  };
}
