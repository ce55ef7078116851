import type { ApiKeyRecord } from '../../domain/types.js';
import type { ApiKeyRepository } from '../../ports/store.js';
import { type ApiKeyDoc, type MongoDatabase, touchMerchant } from './database.js';

export const toKeyDoc = (k: ApiKeyRecord): ApiKeyDoc => ({
  _id: k.id,
  merchantId: k.merchantId,
  mode: k.mode,
  hash: k.hash,
  prefix: k.prefix,
  status: k.status,
  createdAt: k.createdAt,
  revokedAt: k.revokedAt,
});

const toKey = (d: ApiKeyDoc): ApiKeyRecord => ({
  id: d._id,
  merchantId: d.merchantId,
  mode: d.mode,
  hash: d.hash,
  prefix: d.prefix,
  status: d.status,
  createdAt: d.createdAt,
  revokedAt: d.revokedAt,
});

export function createMongoApiKeyRepository(database: MongoDatabase): ApiKeyRepository {
  const { apiKeys, merchants } = database.collections;
  const activeKeys = (merchantId: string, mode: ApiKeyRecord['mode']) => ({ merchantId, mode, status: 'active' as const });
  const revocation = (revokedAt: string) => ({ $set: { status: 'revoked' as const, revokedAt } });

  return {
    async findByHash(hash) {
      const doc = await apiKeys.findOne({ hash });
      return doc ? toKey(doc) : null;
    },
    async listByMerchant(merchantId) {
      const docs = await apiKeys.find({ merchantId }).sort({ createdAt: 1, _id: 1 }).toArray();
      return docs.map(toKey);
    },
    async replace(key, revokedAt) {
      return database.inTransaction(async (session) => {
        await touchMerchant(merchants, key.merchantId, 'apiKeysVersion', session);
        const revoked = await apiKeys.updateMany(activeKeys(key.merchantId, key.mode), revocation(revokedAt), { session });
        await apiKeys.insertOne(toKeyDoc(key), { session });
        return revoked.modifiedCount;
      });
    },
    async revoke({ merchantId, mode, revokedAt }) {
      const revoked = await apiKeys.updateMany(activeKeys(merchantId, mode), revocation(revokedAt));
      return revoked.modifiedCount;
    },
  };
}
