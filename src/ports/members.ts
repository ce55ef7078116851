import type { Member, MemberPasswordToken, MemberRole, MemberSession, MemberStatus } from '../domain/types.js';

/** Whether the patch (null: a removal) could end a member's being an active owner. */
export function mayEndOwnership(patch: MemberPatch | null): boolean {
  return patch === null || (patch.role !== undefined && patch.role !== 'owner') || (patch.status !== undefined && patch.status !== 'active');
}

/** Whether the member, changed by `patch` (null: removed), stops being an active owner. */
export function endsOwnership(member: Pick<Member, 'role' | 'status'>, patch: MemberPatch | null): boolean {
  return member.role === 'owner' && member.status === 'active' && mayEndOwnership(patch);
}

export interface MemberPatch {
  role?: MemberRole;
  status?: MemberStatus;
  passwordHash?: string;
}

/**
 * A merchant's team members, their one-time set-password tokens and their browser sessions
 * (issue #19). Tokens and sessions are looked up by their SHA-256 only. Every method is one atomic
 * unit of work.
 */
export interface MemberRepository {
  /** Inserts the member; false (nothing written) when the merchant already has a member with this email. */
  insert(member: Member): Promise<boolean>;
  /** The member, only within its merchant. */
  findById(options: { id: string; merchantId: string }): Promise<Member | null>;
  /** By normalised email within one merchant. */
  findByEmail(options: { merchantId: string; email: string }): Promise<Member | null>;
  /**
   * Every merchant's active member with this normalised email and a password set, oldest first, at
   * most `limit`: the memberships an email-only sign-in may open (issue #28).
   */
  listActiveByEmail(options: { email: string; limit: number }): Promise<Member[]>;
  /** The merchant's members, oldest first. */
  listByMerchant(merchantId: string): Promise<Member[]>;
  /**
   * Applies the patch; null when the member is not the merchant's; 'last_owner' (nothing written)
   * when the member is the merchant's only active owner and the patch would end that. Checked and
   * written as one unit: two owners demoting each other at once cannot both succeed.
   */
  update(options: { id: string; merchantId: string; patch: MemberPatch; updatedAt: string }): Promise<Member | null | 'last_owner'>;
  /** Deletes the member with its sessions and tokens; false when it is not the merchant's; 'last_owner' as for update. */
  remove(options: { id: string; merchantId: string }): Promise<boolean | 'last_owner'>;

  /** Stores a set-password token, replacing the member's unused ones (the newest link is the only one that works). */
  replacePasswordToken(token: MemberPasswordToken): Promise<void>;
  /**
   * Uses the token once: marks it used and answers it when it is unused and expires after `now`;
   * else null (unknown, used or expired). Of concurrent calls with one token, one gets it.
   */
  consumePasswordToken(options: { hash: string; now: string }): Promise<MemberPasswordToken | null>;

  insertSession(session: MemberSession): Promise<void>;
  findSession(hash: string): Promise<MemberSession | null>;
  /** Moves lastSeenAt forward (never back). */
  touchSession(options: { hash: string; lastSeenAt: string }): Promise<void>;
  /** Ends one session; false when there was none. */
  deleteSession(hash: string): Promise<boolean>;
  /** Ends the member's oldest sessions (by creation) beyond the newest `keep`; returns how many. */
  trimSessionsOf(options: { memberId: string; keep: number }): Promise<number>;
  /** Ends every session of the member; returns how many. */
  deleteSessionsOf(memberId: string): Promise<number>;
  /**
   * Retention, one bounded step: deletes at most `limit` sessions past their absolute expiry and at
   * most `limit` tokens expired before `before`; returns how many rows went (a total under `limit`: none are left).
   */
  pruneExpired(options: { before: string; limit: number }): Promise<number>;
}
