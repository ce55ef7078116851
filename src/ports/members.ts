import type { Member, MemberPasswordToken, MemberRole, MemberSession, MemberStatus } from '../domain/types.js';

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
  /** The merchant's members, oldest first. */
  listByMerchant(merchantId: string): Promise<Member[]>;
  /** Applies the patch; null when the member is not the merchant's. */
  update(options: { id: string; merchantId: string; patch: MemberPatch; updatedAt: string }): Promise<Member | null>;
  /** Deletes the member with its sessions and tokens; false when it is not the merchant's. */
  remove(options: { id: string; merchantId: string }): Promise<boolean>;

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
  /** Ends every session of the member; returns how many. */
  deleteSessionsOf(memberId: string): Promise<number>;
  /** Retention: deletes sessions past their absolute expiry and tokens expired before `before`; returns how many rows went. */
  pruneExpired(options: { before: string }): Promise<number>;
}
