import { MongoServerError, type UpdateFilter } from 'mongodb';
import { AppError } from '../../domain/errors.js';
import type { Merchant, MerchantSecretRecord } from '../../domain/types.js';
import type { MerchantPatch, MerchantRepository, StorefrontSecretRecord } from '../../ports/store.js';
import { toKeyDoc } from './api-keys.js';
import { type MerchantDoc, type MerchantSecretDoc, type MongoDatabase, touchMerchant } from './database.js';

const toMerchantDoc = (m: Merchant): MerchantDoc => ({
  _id: m.id,
  name: m.name,
  status: m.status,
  address: m.address,
  integrations: m.integrations,
  settings: m.settings,
  rateLimitPerMin: m.rateLimitPerMin,
  createdAt: m.createdAt,
  updatedAt: m.updatedAt,
});

const toMerchant = (d: MerchantDoc): Merchant => ({
  id: d._id,
  name: d.name,
  status: d.status,
  address: d.address,
  integrations: d.integrations,
  settings: d.settings,
  rateLimitPerMin: d.rateLimitPerMin,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

/** Stored on the merchant document, outside MerchantDoc's mapped fields. */
type StorefrontSecretField = { storefrontSecret?: StorefrontSecretRecord };

const toSecretDoc = (s: MerchantSecretRecord): MerchantSecretDoc => ({
  _id: s.id,
  merchantId: s.merchantId,
  ciphertext: s.ciphertext,
  createdAt: s.createdAt,
  expiresAt: s.expiresAt,
  signingKey: s.signingKey ?? null,
});

const toSecret = (d: MerchantSecretDoc): MerchantSecretRecord => ({
  id: d._id,
  merchantId: d.merchantId,
  ciphertext: d.ciphertext,
  createdAt: d.createdAt,
  expiresAt: d.expiresAt,
  signingKey: d.signingKey ?? null,
});

const PLAIN_FIELDS = ['name', 'status', 'address', 'rateLimitPerMin'] as const satisfies readonly (keyof MerchantPatch)[];

/**
 * The patch as `$set` paths: plain fields whole, integrations and settings key by key (dotted
 * paths), so concurrent patches of different keys both land. Never `_id`, never `undefined`.
 */
function patchPaths(patch: MerchantPatch): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const name of PLAIN_FIELDS) if (patch[name] !== undefined) paths[name] = patch[name];
  for (const [key, value] of Object.entries(patch.integrations ?? {})) if (value !== undefined) paths[`integrations.${key}`] = value;
  for (const [key, value] of Object.entries(patch.settings ?? {})) if (value !== undefined) paths[`settings.${key}`] = value;
  return paths;
}

export function createMongoMerchantRepository(database: MongoDatabase): MerchantRepository {
  const { merchants, merchantSecrets, apiKeys } = database.collections;

  return {
    async create(bundle) {
      await database.inTransaction(async (session) => {
        await merchants.insertOne(toMerchantDoc(bundle.merchant), { session });
        if (bundle.keys.length > 0) await apiKeys.insertMany(bundle.keys.map(toKeyDoc), { session });
        await merchantSecrets.insertOne(toSecretDoc(bundle.secret), { session });
      });
    },
    async findById(id) {
      const doc = await merchants.findOne({ _id: id });
      return doc ? toMerchant(doc) : null;
    },
    async update(id, patch, updatedAt) {
      try {
        const doc = await merchants.findOneAndUpdate({ _id: id }, { $set: Object.assign(patchPaths(patch), { updatedAt }) }, { returnDocument: 'after' });
        return doc ? toMerchant(doc) : null;
      } catch (error) {
        if (error instanceof MongoServerError && error.code === 11000) {
          throw new AppError('CONFLICT', 'That storefront domain is registered to another merchant');
        }
        throw error;
      }
    },
    async findByStorefrontDomain(domain) {
      // $type repeats the partial index's filter: without it the planner cannot prove the query is inside the index.
      const doc = await merchants.findOne({ 'settings.storefrontDomain': { $eq: domain, $type: 'string' } });
      return doc ? toMerchant(doc) : null;
    },
    async count() {
      return merchants.countDocuments({});
    },
    async search({ idPrefix, namePrefix, limit }) {
      if (limit <= 0) return []; // MongoDB reads limit 0 as "no limit"
      const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const byId = await merchants.find({ _id: { $gte: idPrefix, $lt: `${idPrefix}\uffff` } }).sort({ _id: 1 }).limit(limit).toArray();
      // Bounded by the limit; a name index would need a stored lower-cased name (merchants are few).
      const byName = await merchants.find({ name: { $regex: `^${escape(namePrefix)}`, $options: 'i' } }).sort({ name: 1, _id: 1 }).limit(limit).toArray();
      const found = new Map([...byId, ...byName].map((d) => [d._id, d]));
      return [...found.values()].slice(0, limit).map(toMerchant);
    },
    async list({ limit, afterId }) {
      if (limit <= 0) return []; // MongoDB reads limit 0 as "no limit"
      const docs = await merchants
        .find(afterId === undefined ? {} : { _id: { $gt: afterId } })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toMerchant);
    },
    async listSecrets(merchantId) {
      const docs = await merchantSecrets.find({ merchantId }).sort({ createdAt: -1, _id: -1 }).toArray();
      return docs.map(toSecret);
    },
    async findStorefrontSecret(merchantId) {
      const doc = (await merchants.findOne({ _id: merchantId }, { projection: { storefrontSecret: 1 } })) as StorefrontSecretField | null;
      return doc?.storefrontSecret ?? null;
    },
    async setStorefrontSecret({ merchantId, sealed, updatedAt, previousExpiresAt }) {
      // A field of the merchant's document that toMerchant never reads; read and replaced in one transaction.
      return database.inTransaction(async (session) => {
        const before = (await merchants.findOne({ _id: merchantId }, { projection: { storefrontSecret: 1 }, session })) as StorefrontSecretField | null;
        if (!before) return null;
        const flag = { 'settings.storefrontSharedSecretSet': sealed !== null, updatedAt };
        const record: StorefrontSecretRecord | null =
          sealed === null ? null : { current: sealed, previous: before.storefrontSecret?.current ?? null, previousExpiresAt: before.storefrontSecret ? previousExpiresAt : null };
        const change: UpdateFilter<MerchantDoc> = record === null ? { $set: flag, $unset: { storefrontSecret: true } } : { $set: Object.assign(flag, { storefrontSecret: record }) };
        const doc = await merchants.findOneAndUpdate({ _id: merchantId }, change, { returnDocument: 'after', session });
        return doc ? toMerchant(doc) : null;
      });
    },
    async rotateSecret(secret, previousExpiresAt) {
      await database.inTransaction(async (session) => {
        await touchMerchant(merchants, secret.merchantId, 'secretsVersion', session);
        await merchantSecrets.updateMany(
          { merchantId: secret.merchantId, expiresAt: null },
          { $set: { expiresAt: previousExpiresAt } },
          { session },
        );
        await merchantSecrets.insertOne(toSecretDoc(secret), { session });
      });
    },
    async setSigningKey({ secretId, sealed }) {
      // Set only where none is: the first node's key wins, every node then signs with it.
      await merchantSecrets.updateOne({ _id: secretId, $or: [{ signingKey: null }, { signingKey: { $exists: false } }] }, { $set: { signingKey: sealed } });
      const doc = await merchantSecrets.findOne({ _id: secretId }, { projection: { signingKey: 1 } });
      return doc?.signingKey ?? sealed;
    },
  };
}
