import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../../domain/types.js';
import type { WebhookRepository } from '../../ports/store.js';
import type { SqliteDatabase } from './database.js';

type DocRow = { doc: string };
const parse = <T>(row: DocRow | undefined): T | null => (row ? (JSON.parse(row.doc) as T) : null);
/** An endpoint's document; one written before asymmetric signatures has no `signing`: symmetric. */
const toEndpoint = (row: DocRow | undefined): WebhookEndpoint | null => {
  const e = parse<WebhookEndpoint>(row);
  return e && Object.assign({ signing: 'symmetric' as const }, e);
};

/** Inserts webhook deliveries; shared by the outbox of order transitions and batches. */
export function createDeliveryWriter(db: SqliteDatabase) {
  const insert = db.prepare(
    `INSERT INTO webhook_deliveries (id, endpoint_id, merchant_id, mode, status, next_attempt_at, lease_owner, lease_until, created_at, doc)
     VALUES (@id, @endpointId, @merchantId, @mode, @status, @nextAttemptAt, @leaseOwner, @leaseUntil, @createdAt, @doc)`,
  );
  return (deliveries: WebhookDelivery[]) => {
    for (const d of deliveries) insert.run(Object.assign({ doc: JSON.stringify(d) }, d));
  };
}

export function createSqliteWebhookRepository(db: SqliteDatabase): WebhookRepository {
  const writeDeliveries = createDeliveryWriter(db);
  const insertEndpoint = db.prepare('INSERT INTO webhook_endpoints (id, merchant_id, mode, enabled, doc) VALUES (?, ?, ?, ?, ?)');
  const endpointById = db.prepare<[string], DocRow>('SELECT doc FROM webhook_endpoints WHERE id = ?');
  const endpointsOf = db.prepare<[string, string], DocRow>('SELECT doc FROM webhook_endpoints WHERE merchant_id = ? AND mode = ? ORDER BY id');
  const enabledEndpointsOf = db.prepare<[string, string], DocRow>(
    'SELECT doc FROM webhook_endpoints WHERE merchant_id = ? AND mode = ? AND enabled = 1 ORDER BY id',
  );
  // The same condition as the partial index webhook_endpoints_troubled, so the planner uses it.
  const TROUBLED = "(json_extract(doc, '$.failingSince') IS NOT NULL OR (enabled = 0 AND json_extract(doc, '$.disabledReason') IS NOT NULL))";
  // The mode is a test on the troubled endpoints' partial index (they are few), not a seek.
  type Troubled = { merchantId?: string; mode: string | null; limit: number };
  const troubledOf = db.prepare<Troubled, DocRow>(`SELECT doc FROM webhook_endpoints WHERE ${TROUBLED} AND merchant_id = @merchantId AND (@mode IS NULL OR mode = @mode) ORDER BY merchant_id, id LIMIT @limit`);
  const troubledAll = db.prepare<Troubled, DocRow>(`SELECT doc FROM webhook_endpoints WHERE ${TROUBLED} AND (@mode IS NULL OR mode = @mode) ORDER BY merchant_id, id LIMIT @limit`);
  const writeEndpoint = db.prepare('UPDATE webhook_endpoints SET enabled = ?, doc = ? WHERE id = ?');
  const deleteEndpoint = db.prepare('DELETE FROM webhook_endpoints WHERE id = ? AND merchant_id = ? AND mode = ?');
  // Every query below walks an index: (status, lease_until) for what is in flight, (status,
  // merchant_id, next_attempt_at, id) for the merchants with due work and each one's oldest.
  const DUE = `status = 'pending' AND next_attempt_at <= @now AND (lease_until IS NULL OR lease_until <= @dbNow)`;
  const anyDue = db.prepare<{ now: string; dbNow: string }, { id: string }>(`SELECT id FROM webhook_deliveries WHERE ${DUE} LIMIT 1`);
  const inFlight = db.prepare<{ dbNow: string }, { merchant_id: string; endpoint_id: string }>(
    "SELECT merchant_id, endpoint_id FROM webhook_deliveries WHERE status = 'pending' AND lease_until > @dbNow",
  );
  // The merchants with due work, one index seek per merchant with pending deliveries (a DISTINCT
  // would read every due delivery: a backlog of thousands, on every claim).
  const dueMerchants = db.prepare<{ now: string }, { merchant_id: string }>(
    `WITH RECURSIVE pending(id) AS (
       SELECT (SELECT merchant_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY merchant_id LIMIT 1)
       UNION ALL
       SELECT (SELECT merchant_id FROM webhook_deliveries WHERE status = 'pending' AND merchant_id > pending.id ORDER BY merchant_id LIMIT 1)
       FROM pending WHERE pending.id IS NOT NULL
     )
     SELECT id AS merchant_id FROM pending
     WHERE id IS NOT NULL AND EXISTS (SELECT 1 FROM webhook_deliveries WHERE status = 'pending' AND merchant_id = pending.id AND next_attempt_at <= @now)`,
  );
  // Without the documents: most rows read are stepped over (their endpoint is at its cap), and a
  // document (the payload) costs more to read than the rest of the row. The picked ones are read by id.
  const dueOfMerchant = db.prepare<{ now: string; dbNow: string; merchantId: string; limit: number }, { endpoint_id: string; next_attempt_at: string; id: string }>(
    `SELECT endpoint_id, next_attempt_at, id FROM webhook_deliveries WHERE merchant_id = @merchantId AND ${DUE} ORDER BY next_attempt_at, id LIMIT @limit`,
  );
  /** The store's clock (SQLite's own time, the same for every process sharing the file). */
  const clockRow = db.prepare<[], { ms: number }>("SELECT CAST(unixepoch('subsec') * 1000 AS INTEGER) AS ms");
  const dbNowMs = () => clockRow.get()!.ms;
  const writeDelivery = db.prepare(
    'UPDATE webhook_deliveries SET status = @status, next_attempt_at = @nextAttemptAt, lease_owner = @leaseOwner, lease_until = @leaseUntil, doc = @doc WHERE id = @id',
  );
  const deliveryById = db.prepare<[string], DocRow>('SELECT doc FROM webhook_deliveries WHERE id = ?');
  const insertAttempt = db.prepare('INSERT INTO webhook_attempts (id, delivery_id, attempt, doc) VALUES (?, ?, ?, ?)');
  // In the order made: attempt numbers restart when a delivery is redelivered.
  const attemptsOf = db.prepare<[string], DocRow>('SELECT doc FROM webhook_attempts WHERE delivery_id = ? ORDER BY rowid');

  const saveDelivery = (d: WebhookDelivery) => writeDelivery.run(Object.assign({ doc: JSON.stringify(d) }, d));

  const updateEndpoint = db.transaction((options: Parameters<WebhookRepository['updateEndpoint']>[0]) => {
    const current = toEndpoint(endpointById.get(options.id));
    if (!current) return null;
    const defined = Object.fromEntries(Object.entries(options.patch).filter(([, v]) => v !== undefined));
    const next: WebhookEndpoint = Object.assign({}, current, defined, { updatedAt: options.updatedAt });
    writeEndpoint.run(next.enabled ? 1 : 0, JSON.stringify(next), next.id);
    return next;
  });

  /**
   * The fair-share pick: what is in flight per merchant and endpoint, then each merchant's oldest due
   * deliveries that fit the caps (4 × its room read, to step over capped endpoints), taken in turns.
   */
  const claim = db.transaction((options: Parameters<WebhookRepository['claimDue']>[0]) => {
    const dbNowMsValue = dbNowMs();
    const dbNow = new Date(dbNowMsValue).toISOString();
    const leaseUntil = new Date(dbNowMsValue + Math.round(options.leaseMs)).toISOString();
    const perMerchant = options.merchantConcurrency ?? Number.MAX_SAFE_INTEGER;
    const perEndpoint = options.endpointConcurrency ?? Number.MAX_SAFE_INTEGER;
    const busyMerchant = new Map<string, number>();
    const busyEndpoint = new Map<string, number>();
    const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
    for (const row of inFlight.all({ dbNow })) {
      bump(busyMerchant, row.merchant_id);
      bump(busyEndpoint, row.endpoint_id);
    }
    const turns: Array<Array<{ next_attempt_at: string; id: string }>> = [];
    for (const { merchant_id: merchantId } of dueMerchants.all({ now: options.now })) {
      const room = Math.min(perMerchant - (busyMerchant.get(merchantId) ?? 0), options.limit);
      if (room <= 0) continue;
      let turn = 0;
      for (const row of dueOfMerchant.all({ now: options.now, dbNow, merchantId, limit: room * 4 })) {
        if (turn >= room) break;
        if ((busyEndpoint.get(row.endpoint_id) ?? 0) >= perEndpoint) continue;
        bump(busyEndpoint, row.endpoint_id);
        (turns[turn++] ??= []).push(row);
      }
    }
    const byDue = (x: { next_attempt_at: string; id: string }, y: { next_attempt_at: string; id: string }) =>
      x.next_attempt_at < y.next_attempt_at ? -1 : x.next_attempt_at > y.next_attempt_at ? 1 : x.id < y.id ? -1 : 1;
    const picked = turns.flatMap((turn) => turn.sort(byDue)).slice(0, options.limit);
    return picked.map((row) => {
      const leased = Object.assign(JSON.parse(deliveryById.get(row.id)!.doc) as WebhookDelivery, { leaseOwner: options.owner, leaseUntil });
      saveDelivery(leased);
      return leased;
    });
  });

  const complete = db.transaction((options: Parameters<WebhookRepository['completeAttempt']>[0]) => {
    const current = parse<WebhookDelivery>(deliveryById.get(options.id));
    if (!current || current.leaseOwner !== options.owner || current.status !== 'pending') return false;
    const a = options.attempt;
    insertAttempt.run(a.id, a.deliveryId, a.attempt, JSON.stringify(a));
    saveDelivery(Object.assign(current, {
      status: options.outcome.status,
      attempts: a.attempt,
      nextAttemptAt: options.outcome.nextAttemptAt ?? current.nextAttemptAt,
      leaseOwner: null,
      leaseUntil: null,
      lastStatusCode: a.statusCode,
      lastError: a.error,
      lastLatencyMs: a.latencyMs,
      deliveredAt: options.outcome.status === 'delivered' ? a.at : current.deliveredAt,
    }));
    return true;
  });

  const pendingOf = db.prepare<[string, number], { n: number }>(
    "SELECT COUNT(*) AS n FROM (SELECT 1 FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'pending' LIMIT ?)",
  );
  const oldDeliveries = db.prepare<[string, number], { id: string }>('SELECT id FROM webhook_deliveries WHERE created_at < ? ORDER BY created_at LIMIT ?');
  const dropAttempts = db.prepare<[string]>('DELETE FROM webhook_attempts WHERE delivery_id = ?');
  const dropDelivery = db.prepare<[string]>('DELETE FROM webhook_deliveries WHERE id = ?');
  const prune = db.transaction((options: Parameters<WebhookRepository['prune']>[0]) => {
    const ids = oldDeliveries.all(options.createdBefore, options.limit);
    for (const { id } of ids) {
      dropAttempts.run(id);
      dropDelivery.run(id);
    }
    return ids.length;
  });

  const requeue = db.transaction((options: Parameters<WebhookRepository['requeue']>[0]) => {
    const where = ['merchant_id = @merchantId', 'mode = @mode'];
    const params: Record<string, unknown> = { merchantId: options.merchantId, mode: options.mode };
    if (options.ids) {
      if (options.ids.length === 0) return 0;
      where.push(`id IN (${options.ids.map((_, i) => `@id${i}`).join(', ')})`);
      options.ids.forEach((id, i) => (params[`id${i}`] = id));
    }
    const optional = { status: 'status = @status', createdFrom: 'created_at >= @createdFrom', createdTo: 'created_at < @createdTo' };
    for (const name of ['status', 'createdFrom', 'createdTo'] as const) {
      if (options[name] === undefined) continue;
      where.push(optional[name]);
      params[name] = options[name];
    }
    const rows = db.prepare<Record<string, unknown>, DocRow>(`SELECT doc FROM webhook_deliveries WHERE ${where.join(' AND ')}`).all(params);
    for (const row of rows) {
      const d = JSON.parse(row.doc) as WebhookDelivery;
      saveDelivery(Object.assign(d, { status: 'pending' as const, attempts: 0, nextAttemptAt: options.now, leaseOwner: null, leaseUntil: null }));
    }
    return rows.length;
  });

  return {
    async insertEndpoint(e) {
      insertEndpoint.run(e.id, e.merchantId, e.mode, e.enabled ? 1 : 0, JSON.stringify(e));
    },
    async findEndpoint({ id, merchantId, mode }) {
      const e = toEndpoint(endpointById.get(id));
      if (!e || (merchantId !== undefined && e.merchantId !== merchantId) || (mode !== undefined && e.mode !== mode)) return null;
      return e;
    },
    async listEndpoints({ merchantId, mode, enabledOnly }) {
      return (enabledOnly ? enabledEndpointsOf : endpointsOf).all(merchantId, mode).map((r) => toEndpoint(r)!);
    },
    async updateEndpoint(options) {
      return updateEndpoint.immediate(options);
    },
    async listTroubledEndpoints({ merchantId, mode, limit }) {
      const rows = merchantId === undefined ? troubledAll.all({ mode: mode ?? null, limit }) : troubledOf.all({ merchantId, mode: mode ?? null, limit });
      return rows.map((r) => toEndpoint(r)!);
    },
    async deleteEndpoint({ id, merchantId, mode }) {
      return deleteEndpoint.run(id, merchantId, mode).changes === 1;
    },
    async insertDeliveries(deliveries) {
      db.transaction(writeDeliveries).immediate(deliveries);
    },
    async claimDue(options) {
      // An idle poll only reads (WAL readers never wait): workers take the write lock when there is work.
      if (options.limit <= 0 || !anyDue.get({ now: options.now, dbNow: new Date(dbNowMs()).toISOString() })) return [];
      return claim.immediate(options);
    },
    async completeAttempt(options) {
      return complete.immediate(options);
    },
    async findDelivery({ id, merchantId, mode }) {
      const d = parse<WebhookDelivery>(deliveryById.get(id));
      return d && d.merchantId === merchantId && d.mode === mode ? d : null;
    },
    async listDeliveries({ merchantId, mode, endpointId, status, createdFrom, createdTo, after, limit }) {
      const where = ['merchant_id = @merchantId', 'mode = @mode'];
      const params: Record<string, unknown> = { merchantId, mode, limit };
      const optional = {
        endpointId: 'endpoint_id = @endpointId',
        status: 'status = @status',
        createdFrom: 'created_at >= @createdFrom',
        createdTo: 'created_at < @createdTo',
        after: 'id < @after',
      };
      for (const [name, value] of Object.entries({ endpointId, status, createdFrom, createdTo, after })) {
        if (value === undefined) continue;
        where.push(optional[name as keyof typeof optional]);
        params[name] = value;
      }
      return db
        .prepare<Record<string, unknown>, DocRow>(`SELECT doc FROM webhook_deliveries WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT @limit`)
        .all(params)
        .map((r) => JSON.parse(r.doc) as WebhookDelivery);
    },
    async listAttempts(deliveryId) {
      return attemptsOf.all(deliveryId).map((r) => JSON.parse(r.doc) as WebhookAttempt);
    },
    async requeue(options) {
      return requeue.immediate(options);
    },
    async countPending({ endpointId, limit }) {
      return pendingOf.get(endpointId, limit)!.n;
    },
    async prune(options) {
      return prune.immediate(options);
    },
  };
}
