/** A courier's one-time sign-in code (issue #27): stored by its SHA-256 only. */
export interface CourierSignInCode {
  hash: string;
  courierId: string;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
}

/** A courier app's browser session (the `exd_courier_session` cookie): stored by its SHA-256 only. */
export interface CourierSession {
  hash: string;
  courierId: string;
  createdAt: string;
  expiresAt: string;
}

/**
 * Couriers' sign-in codes and browser sessions (issue #27). Every method is one atomic unit of work.
 */
export interface CourierSessionRepository {
  /** Stores a sign-in code, replacing the courier's unused ones (the newest link is the only one that works). */
  replaceSignInCode(code: CourierSignInCode): Promise<void>;
  /** Uses the code once: marks it used and answers it when unused and expiring after `now`; else null. Of concurrent calls, one gets it. */
  consumeSignInCode(options: { hash: string; now: string }): Promise<CourierSignInCode | null>;
  insertSession(session: CourierSession): Promise<void>;
  findSession(hash: string): Promise<CourierSession | null>;
  /** Ends one session; false when there was none. */
  deleteSession(hash: string): Promise<boolean>;
  /** Ends every session of the courier and drops its unused codes (disable, token rotation); returns how many sessions went. */
  deleteAllOf(courierId: string): Promise<number>;
  /** Ends the courier's oldest sessions beyond the newest `keep`. */
  trimSessionsOf(options: { courierId: string; keep: number }): Promise<number>;
  /** Retention, one bounded step: at most `limit` sessions and `limit` codes expired before `before`; returns how many rows went. */
  pruneExpired(options: { before: string; limit: number }): Promise<number>;
}
