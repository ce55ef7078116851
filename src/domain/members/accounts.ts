import { randomBytes } from 'node:crypto';

/**
 * What team members (issue #19) and operators (issue #29) share: the same one-time link secrets,
 * session ids and session expiry rules, so both kinds of account sign in under one policy.
 */

/** `<prefix>` + 43 base64url characters (32 random bytes): a set-password link's or a session's secret. */
export const newAccountSecret = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;

/** Whether a string has the shape of a secret of that prefix (checked before any store lookup). */
export const isAccountSecret = (prefix: string, value: string) => value.startsWith(prefix) && /^[A-Za-z0-9_-]{43}$/.test(value.slice(prefix.length));

/** lastSeenAt is written at most this often per session (each write is a store round trip). */
export const TOUCH_EVERY_MS = 60_000;

export interface SessionPolicy {
  /** How long a set-password link works. */
  invitationTtlMs: number;
  /** A session unused this long is over. */
  sessionIdleMs: number;
  /** A session is over this long after sign-in, however used. */
  sessionMaxMs: number;
  /** Sessions one account may hold; a sign-in beyond it ends the oldest. */
  maxSessions: number;
}

/**
 * A stored session at `now`: `ended` (past its absolute expiry or idle too long: delete it and
 * refuse), `touch` (valid; move lastSeenAt forward) or `valid`.
 */
export function sessionVerdict(session: { lastSeenAt: string; expiresAt: string }, now: number, policy: Pick<SessionPolicy, 'sessionIdleMs'>): 'ended' | 'touch' | 'valid' {
  const seen = Date.parse(session.lastSeenAt);
  if (now >= Date.parse(session.expiresAt) || now - seen >= policy.sessionIdleMs) return 'ended';
  return now - seen >= TOUCH_EVERY_MS ? 'touch' : 'valid';
}
