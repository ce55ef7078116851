import type { Courier } from '../../domain/types.js';
import type { CourierPosition, CourierRepository } from '../../ports/store.js';
import type { SqliteDatabase, WriteQueue } from './database.js';

/** The document, and the latest position kept beside it (written without rewriting the document). */
type DocRow = { doc: string; location_lat: number | null; location_lng: number | null; location_at: string | null };
const DOC_COLUMNS = 'doc, location_lat, location_lng, location_at';

function parse(row: DocRow | undefined): Courier | null {
  if (!row) return null;
  const courier = JSON.parse(row.doc) as Courier;
  // Documents written before shifts had a planned end (the migration adds it; a restored copy may not have run it).
  courier.shiftEndsAt ??= null;
  if (row.location_at !== null && (courier.locationAt === null || courier.locationAt <= row.location_at)) {
    courier.location = { lat: row.location_lat!, lng: row.location_lng! };
    courier.locationAt = row.location_at;
  }
  return courier;
}

export function createSqliteCourierRepository(db: SqliteDatabase, inTransaction: WriteQueue): CourierRepository {
  const insert = db.prepare('INSERT INTO couriers (id, mode, token_hash, status, doc) VALUES (?, ?, ?, ?, ?)');
  const byId = db.prepare<[string], DocRow>(`SELECT ${DOC_COLUMNS} FROM couriers WHERE id = ?`);
  const byToken = db.prepare<[string], DocRow>(`SELECT ${DOC_COLUMNS} FROM couriers WHERE token_hash = ?`);
  const byMode = db.prepare<[string], DocRow>(`SELECT ${DOC_COLUMNS} FROM couriers WHERE mode = ? ORDER BY id`);
  // A seek on the primary key then a filter: id order is the page order, and couriers are thousands, not millions.
  const page = db.prepare<{ after: string; mode: string | null; status: string | null; limit: number }, DocRow>(
    `SELECT ${DOC_COLUMNS} FROM couriers WHERE id > @after AND (@mode IS NULL OR mode = @mode) AND (@status IS NULL OR status = @status) ORDER BY id LIMIT @limit`,
  );
  // Positions are the one frequent write: three columns, no read and no document rewrite (~2,000 a second).
  const writeLocation = db.prepare<[number, number, string, string, string]>(
    'UPDATE couriers SET location_lat = ?, location_lng = ?, location_at = ? WHERE id = ? AND (location_at IS NULL OR location_at <= ?)',
  );
  const write = db.prepare('UPDATE couriers SET status = ?, doc = ? WHERE id = ?');
  const writeToken = db.prepare('UPDATE couriers SET token_hash = ?, doc = ? WHERE id = ?');
  const remove = db.prepare<[string]>('DELETE FROM couriers WHERE id = ?');

  const setStatus = db.transaction(
    (options: { id: string; status: Courier['status']; from?: Courier['status'][]; fromJobId?: string; job?: Courier['job']; shiftEndsAt?: string | null; updatedAt: string }) => {
      const { id, status, from, fromJobId, job, shiftEndsAt, updatedAt } = options;
      const current = parse(byId.get(id));
      if (!current || (from && !from.includes(current.status))) return null;
      if (fromJobId !== undefined && current.job?.id !== fromJobId) return null;
      if (current.accountStatus === 'disabled' && status !== 'off_duty') return null;
      const next: Courier = Object.assign(current, { status, updatedAt }, job !== undefined && { job }, shiftEndsAt !== undefined && { shiftEndsAt });
      write.run(status, JSON.stringify(next), id);
      return next;
    },
  );
  const setLocations = db.transaction((positions: readonly CourierPosition[]) => {
    for (const { id, location, at } of positions) writeLocation.run(location.lat, location.lng, at, id, at);
  });

  const replaceTokenHash = db.transaction((id: string, tokenHash: string, updatedAt: string) => {
    const current = parse(byId.get(id));
    if (!current) return null;
    const next: Courier = Object.assign(current, { tokenHash, updatedAt });
    writeToken.run(tokenHash, JSON.stringify(next), id);
    return next;
  });
  const setShiftEnd = db.transaction((id: string, shiftEndsAt: string | null, updatedAt: string) => {
    const current = parse(byId.get(id));
    if (!current || current.status === 'off_duty') return null;
    const next: Courier = Object.assign(current, { shiftEndsAt, updatedAt });
    write.run(current.status, JSON.stringify(next), id);
    return next;
  });
  const setAccountStatus = db.transaction((id: string, accountStatus: Courier['accountStatus'], updatedAt: string) => {
    const current = parse(byId.get(id));
    if (!current) return null;
    const next: Courier = Object.assign(current, { accountStatus, updatedAt });
    write.run(current.status, JSON.stringify(next), id);
    return next;
  });

  return {
    async insert(c) {
      insert.run(c.id, c.mode, c.tokenHash, c.status, JSON.stringify(c));
    },
    async findById(id) {
      return parse(byId.get(id));
    },
    async findByTokenHash(hash) {
      return parse(byToken.get(hash));
    },
    async listByMode(mode) {
      return byMode.all(mode).map((r) => parse(r)!);
    },
    async listPage({ mode, status, afterId, limit }) {
      return page.all({ after: afterId ?? '', mode: mode ?? null, status: status ?? null, limit }).map((r) => parse(r)!);
    },
    async setStatus(options) {
      return inTransaction(() => setStatus(options));
    },
    async setLocations(positions) {
      if (positions.length > 0) await inTransaction(() => setLocations(positions));
    },
    async replaceTokenHash({ id, tokenHash, updatedAt }) {
      return inTransaction(() => replaceTokenHash(id, tokenHash, updatedAt));
    },
    async setAccountStatus({ id, accountStatus, updatedAt }) {
      return inTransaction(() => setAccountStatus(id, accountStatus, updatedAt));
    },
    async delete(id) {
      return inTransaction(() => remove.run(id).changes > 0);
    },
    async setShiftEnd({ id, shiftEndsAt, updatedAt }) {
      return inTransaction(() => setShiftEnd(id, shiftEndsAt, updatedAt));
    },
  };
}
