import type { Clock } from '../../ports/clock.js';
import type { IdSource } from '../../ports/ids.js';
import type { Store } from '../../ports/store.js';
import type { AuditActor, AuditEntry, AuditTargetType } from '../types.js';
import { parseInput } from '../validation.js';
import { listAuditCommandSchema } from './schemas.js';

/** Keys never kept in a snapshot, at any depth, whatever the caller passed: no token, hash, key or secret. */
const SECRET_KEY = /token|secret|hash|password|apikey|api_key|livekey|testkey|cipher/i;
/** Snapshots are small: strings cut, depth and keys bounded. */
const MAX_STRING = 500;
const MAX_KEYS = 30;

function clean(value: unknown, depth: number): unknown {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
  if (depth >= 3 || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) return value.slice(0, MAX_KEYS).map((v) => clean(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value).slice(0, MAX_KEYS)) {
    if (SECRET_KEY.test(key)) continue;
    const cleaned = clean(v, depth + 1);
    if (cleaned !== undefined) out[key] = cleaned;
  }
  return out;
}

/** A snapshot as stored: secrets removed by name, bounded in size; null stays null. */
export function auditSnapshot(value: Record<string, unknown> | null | undefined): Record<string, unknown> | null {
  return value ? (clean(value, 0) as Record<string, unknown>) : null;
}

export interface AuditRecord {
  actor: AuditActor;
  action: string;
  target: { type: AuditTargetType; id: string };
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

export type AuditLog = ReturnType<typeof createAuditLog>;

/** The audit log (issue #29): who did what, to what, when, with before/after snapshots. */
export function createAuditLog(deps: { store: Store; clock: Clock; ids: IdSource }) {
  const { store, clock, ids } = deps;

  async function record(entry: AuditRecord): Promise<AuditEntry> {
    const { actor } = entry;
    const stored: AuditEntry = {
      id: ids.next('au'),
      at: clock.now().toISOString(),
      actorKind: actor.kind,
      actorId: actor.kind === 'operator' ? actor.id : null,
      actorEmail: actor.kind === 'operator' ? actor.email : null,
      action: entry.action,
      targetType: entry.target.type,
      targetId: entry.target.id,
      before: auditSnapshot(entry.before),
      after: auditSnapshot(entry.after),
    };
    await store.audit.append(stored);
    return stored;
  }

  /** Newest first, filtered, one keyset page: `nextCursor` is null on the last page. */
  async function list(options: { input: unknown }): Promise<{ entries: AuditEntry[]; nextCursor: string | null }> {
    const { first, after, ...filter } = parseInput(listAuditCommandSchema, options.input);
    const entries = await store.audit.list({ filter, limit: first + 1, ...(after !== undefined && { beforeId: after }) });
    const page = entries.slice(0, first);
    return { entries: page, nextCursor: entries.length > first ? page.at(-1)!.id : null };
  }

  return { record, list };
}
