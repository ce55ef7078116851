import type { TelemetryRepository } from '../../ports/store.js';
import type { MongoDatabase } from './database.js';

export function createMongoTelemetryRepository(database: MongoDatabase): TelemetryRepository {
  const { telemetry } = database.collections;
  return {
    async record(call) {
      const site = call.site ?? '';
      await telemetry.updateOne(
        { _id: JSON.stringify([call.merchantId, call.mode, call.integration, site]) },
        {
          $inc: { callCount: 1 },
          $max: { lastSeenAt: call.at },
          $min: { firstSeenAt: call.at },
          $setOnInsert: { merchantId: call.merchantId, mode: call.mode, integration: call.integration, site },
          ...((call.pluginVersion !== null || call.userAgent !== null) && {
            $set: {
              ...(call.pluginVersion !== null && { pluginVersion: call.pluginVersion }),
              ...(call.userAgent !== null && { userAgent: call.userAgent }),
            },
          }),
        },
        { upsert: true },
      );
    },
    async listByMerchant(merchantId) {
      const docs = await telemetry.find({ merchantId }).sort({ lastSeenAt: -1, integration: 1, site: 1 }).toArray();
      return docs.map((d) => ({
        merchantId: d.merchantId,
        mode: d.mode,
        integration: d.integration,
        site: d.site === '' ? null : d.site,
        pluginVersion: d.pluginVersion ?? null,
        userAgent: d.userAgent ?? null,
        callCount: d.callCount,
        firstSeenAt: d.firstSeenAt,
        lastSeenAt: d.lastSeenAt,
      }));
    },
  };
}
