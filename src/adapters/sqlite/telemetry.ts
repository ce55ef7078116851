import type { IntegrationName, Mode } from '../../domain/types.js';
import type { TelemetryRepository } from '../../ports/store.js';
import type { SqliteDatabase } from './database.js';

interface TelemetryRow {
  merchant_id: string;
  mode: Mode;
  integration: IntegrationName;
  site: string;
  plugin_version: string | null;
  user_agent: string | null;
  call_count: number;
  first_seen_at: string;
  last_seen_at: string;
}

export function createSqliteTelemetryRepository(db: SqliteDatabase): TelemetryRepository {
  const upsert = db.prepare(
    `INSERT INTO integration_telemetry (merchant_id, mode, integration, site, plugin_version, user_agent, call_count, first_seen_at, last_seen_at)
     VALUES (@merchantId, @mode, @integration, @site, @pluginVersion, @userAgent, 1, @at, @at)
     ON CONFLICT (merchant_id, mode, integration, site) DO UPDATE SET
       call_count = call_count + 1,
       plugin_version = COALESCE(excluded.plugin_version, plugin_version),
       user_agent = COALESCE(excluded.user_agent, user_agent),
       first_seen_at = MIN(first_seen_at, excluded.first_seen_at),
       last_seen_at = MAX(last_seen_at, excluded.last_seen_at)`,
  );
  const byMerchant = db.prepare<[string], TelemetryRow>(
    'SELECT * FROM integration_telemetry WHERE merchant_id = ? ORDER BY last_seen_at DESC, integration, site',
  );
  return {
    async record(call) {
      upsert.run(Object.assign({}, call, { site: call.site ?? '' }));
    },
    async listByMerchant(merchantId) {
      return byMerchant.all(merchantId).map((r) => ({
        merchantId: r.merchant_id,
        mode: r.mode,
        integration: r.integration,
        site: r.site === '' ? null : r.site,
        pluginVersion: r.plugin_version,
        userAgent: r.user_agent,
        callCount: r.call_count,
        firstSeenAt: r.first_seen_at,
        lastSeenAt: r.last_seen_at,
      }));
    },
  };
}
