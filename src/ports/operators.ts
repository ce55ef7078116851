import type { AuditEntry, AuditTargetType, Operator, OperatorPasswordToken, OperatorRole, OperatorSession, OperatorStatus } from '../domain/types.js';

/** Whether the operator, changed by `patch`, stops being an active admin. */
export function endsAdmin(operator: Pick<Operator, 'role' | 'status'>, patch: OperatorPatch): boolean {
  const demoted = patch.role !== undefined && patch.role !== 'admin';
  const stopped = patch.status !== undefined && patch.status !== 'active';
  return operator.role === 'admin' && operator.status === 'active' && (demoted || stopped);
}

export interface OperatorPatch {
  role?: OperatorRole;
  status?: OperatorStatus;
  passwordHash?: string;
}

/**
 * Operators (issue #29), their one-time set-password tokens and browser sessions: the member
 * repository's shape without a merchant. Tokens and sessions are looked up by SHA-256 only. Every
 * method is one atomic unit of work.
 */
export interface OperatorRepository {
  /** Inserts the operator; false (nothing written) when the email is taken. */
  insert(operator: Operator): Promise<boolean>;
  findById(id: string): Promise<Operator | null>;
  findByEmail(email: string): Promise<Operator | null>;
  /** Every operator, oldest first. */
  list(): Promise<Operator[]>;
  /**
   * Applies the patch; null for an unknown id; 'last_admin' (nothing written) when the operator is
   * the only active admin and the patch would end that. Checked and written as one unit: two
   * admins demoting each other at once cannot both succeed.
   */
  update(options: { id: string; patch: OperatorPatch; updatedAt: string }): Promise<Operator | null | 'last_admin'>;

  /** Stores a token, replacing the operator's unused ones (only the newest link works). */
  replacePasswordToken(token: OperatorPasswordToken): Promise<void>;
  /** Uses the token once (unused, expiring after `now`); of concurrent calls, one gets it. */
  consumePasswordToken(options: { hash: string; now: string }): Promise<OperatorPasswordToken | null>;

  insertSession(session: OperatorSession): Promise<void>;
  findSession(hash: string): Promise<OperatorSession | null>;
  /** Moves lastSeenAt forward (never back). */
  touchSession(options: { hash: string; lastSeenAt: string }): Promise<void>;
  deleteSession(hash: string): Promise<boolean>;
  /** Ends the operator's oldest sessions beyond the newest `keep`; returns how many. */
  trimSessionsOf(options: { operatorId: string; keep: number }): Promise<number>;
  deleteSessionsOf(operatorId: string): Promise<number>;
  /** Retention, one bounded step: at most `limit` expired sessions and `limit` expired tokens. */
  pruneExpired(options: { before: string; limit: number }): Promise<number>;
}

export interface AuditFilter {
  /** `operator id`, or `admin_token` / `cli`. */
  actor?: string;
  action?: string;
  targetType?: AuditTargetType;
  targetId?: string;
  /** Inclusive lower bound, exclusive upper bound (ISO instants). */
  from?: string;
  to?: string;
}

/** The audit log (issue #29): append-only; read newest first by id (keyset); pruned by age. */
export interface AuditRepository {
  append(entry: AuditEntry): Promise<void>;
  /** Newest first; `beforeId`: the entries older than that one (the previous page's last id). */
  list(options: { filter: AuditFilter; limit: number; beforeId?: string }): Promise<AuditEntry[]>;
  /** Deletes at most `limit` entries older than `before`; returns how many. */
  prune(options: { before: string; limit: number }): Promise<number>;
}
