import type { Clock } from '../../ports/clock.js';
import type { IdSource } from '../../ports/ids.js';
import type { Store } from '../../ports/store.js';
import type { MerchantPrincipal } from '../auth.js';
import { hashToken } from '../credentials.js';
import { AppError } from '../errors.js';
import type { Member, MemberRole, Merchant, Mode } from '../types.js';
import { parseInput } from '../validation.js';
import { isAccountSecret, newAccountSecret, sessionVerdict, type SessionPolicy } from './accounts.js';
import type { PasswordHasher } from './passwords.js';
import { assertPermitted, roleOf } from './roles.js';
import {
  adminInviteMemberCommandSchema,
  adminResetPasswordCommandSchema,
  type ChangeMemberRoleCommand,
  type InviteMemberCommand,
  type LoginCommand,
  type SetPasswordCommand,
} from './schemas.js';

/** The session rules members share with operators (src/domain/members/accounts.ts). */
export type MemberPolicy = SessionPolicy;

const newSecret = newAccountSecret;

const invalidCredentials = () => new AppError('INVALID_CREDENTIALS', 'Email or password is not right');

/**
 * Memberships one email-only sign-in checks the password against (each costs one scrypt
 * verification): a person invited by more merchants signs into the oldest ones, or names the merchant.
 */
export const MAX_SIGN_IN_MEMBERSHIPS = 5;

export interface SignedIn {
  sessionId: string;
  /** The member the session is for: the merchant named, else the oldest membership the password opened. */
  member: Member;
  expiresAt: string;
  /** Every membership the email and password opened, oldest first (the console lets the person choose among them). */
  memberships: Array<{ member: Member; merchant: Merchant }>;
}
const invalidSession = () => new AppError('INVALID_SESSION', 'Not signed in, or the session has ended: sign in again');
const invalidToken = () => new AppError('PASSWORD_TOKEN_INVALID', 'This set-password link is not valid: it was used, has expired or was replaced');

export interface Invitation {
  member: Member;
  /** The one-time link (shown once; only its hash is stored). */
  setPasswordUrl: string;
  expiresAt: string;
}

export type MemberService = ReturnType<typeof createMemberService>;

/**
 * Merchant team members (issue #19): invitations with one-time set-password links, sign-in with
 * email and password into a session, and the owner's management of the team. The session id and
 * the link's token are random secrets stored only as SHA-256; passwords as scrypt hashes, which
 * never leave this service.
 */
export function createMemberService(deps: { store: Store; clock: Clock; ids: IdSource; passwords: PasswordHasher; policy: MemberPolicy; publicBaseUrl: () => string }) {
  const { store, clock, ids, passwords, policy } = deps;
  const nowIso = () => clock.now().toISOString();
  const later = (ms: number) => new Date(clock.now().getTime() + ms).toISOString();

  async function issueLink(member: Member): Promise<Invitation> {
    const token = newSecret('pt_');
    const expiresAt = later(policy.invitationTtlMs);
    await store.members.replacePasswordToken({ hash: hashToken(token), memberId: member.id, merchantId: member.merchantId, createdAt: nowIso(), expiresAt, usedAt: null });
    // In the fragment: browsers never send it to a server, so no access log or Referer carries it.
    return { member, setPasswordUrl: `${deps.publicBaseUrl()}/console/set-password#token=${token}`, expiresAt };
  }

  /**
   * A new member with a set-password link. An email already invited but without a password gets a
   * new link (the old one stops working) and the role asked for; an active member is a CONFLICT.
   */
  async function invite(merchantId: string, input: InviteMemberCommand): Promise<Invitation> {
    const at = nowIso();
    const fresh: Member = { id: ids.next('mb'), merchantId, email: input.email, role: input.role, status: 'invited', passwordHash: null, createdAt: at, updatedAt: at };
    if (await store.members.insert(fresh)) return issueLink(fresh);
    const existing = await store.members.findByEmail({ merchantId, email: input.email });
    if (!existing) throw new AppError('CONFLICT', 'This email was invited concurrently; try again');
    if (existing.status === 'active') throw new AppError('CONFLICT', 'This email already belongs to a member of this merchant');
    // Not active, so not an owner the merchant could lose: the update is never refused as 'last_owner'.
    const updated = existing.role === input.role ? existing : await store.members.update({ id: existing.id, merchantId, patch: { role: input.role }, updatedAt: at });
    return issueLink(updated && updated !== 'last_owner' ? updated : existing);
  }

  /** The admin CLI's invitation (any role, owners included), for a merchant that exists. */
  async function adminInviteMember(options: { input: unknown }): Promise<Invitation> {
    const input = parseInput(adminInviteMemberCommandSchema, options.input);
    if (!(await store.merchants.findById(input.merchantId))) throw new AppError('MERCHANT_NOT_FOUND', 'Merchant not found');
    return invite(input.merchantId, { email: input.email, role: input.role });
  }

  /**
   * A new set-password link for a member (a forgotten password): the member keeps its password and
   * sessions until the link is used, which signs it out everywhere; only the newest link works.
   */
  async function resetMemberPassword(options: { principal: MerchantPrincipal; memberId: string }): Promise<Invitation> {
    assertPermitted(options.principal, 'manage');
    return issueLink(await findMember(options.principal, options.memberId));
  }

  /** The admin CLI's password reset, by merchant and email (for an owner locked out of the console). */
  async function adminResetMemberPassword(options: { input: unknown }): Promise<Invitation> {
    const input = parseInput(adminResetPasswordCommandSchema, options.input);
    const member = await store.members.findByEmail({ merchantId: input.merchantId, email: input.email });
    if (!member) throw new AppError('NOT_FOUND', 'No member with this email in this merchant');
    return issueLink(member);
  }

  /** An owner's invitation from the API. */
  async function inviteMember(options: { principal: MerchantPrincipal; input: InviteMemberCommand }): Promise<Invitation> {
    assertPermitted(options.principal, 'manage');
    return invite(options.principal.merchant.id, options.input);
  }

  /**
   * Uses a set-password link once: the member gets the password, becomes active, and every session
   * it had ends (a password change signs out everywhere). Answers the member's merchant and email,
   * for the sign-in that follows.
   */
  async function setPassword(options: { input: SetPasswordCommand }): Promise<{ merchantId: string; email: string }> {
    // The hashing turn comes first: a busy node refuses before the one-time link is used up.
    const claimed = await passwords.hashPasswordFor(options.input.password, () => store.members.consumePasswordToken({ hash: hashToken(options.input.token), now: nowIso() }));
    if (!claimed) throw invalidToken();
    const { claimed: token, passwordHash } = claimed;
    const member = await store.members.update({ id: token.memberId, merchantId: token.merchantId, patch: { passwordHash, status: 'active' }, updatedAt: nowIso() });
    // Making a member active never ends an owner, so 'last_owner' cannot come back.
    if (!member || member === 'last_owner') throw invalidToken();
    await store.members.deleteSessionsOf(member.id);
    return { merchantId: member.merchantId, email: member.email };
  }

  /**
   * Email and password → a new session. Without a merchant, the email's active memberships (at most
   * MAX_SIGN_IN_MEMBERSHIPS, oldest first) are each checked against the password, and the session
   * opens in the oldest that matches; every match is answered, so a member of several merchants
   * chooses (signing in again naming it). Every failure is the same INVALID_CREDENTIALS, and an
   * unknown email (or a member without a password yet) still costs one scrypt verification.
   */
  async function logIn(options: { input: LoginCommand }): Promise<SignedIn> {
    const { merchantId, email, password } = options.input;
    const candidates = merchantId
      ? [await store.members.findByEmail({ merchantId, email })].filter((m): m is Member => m?.status === 'active' && m.passwordHash !== null)
      : await store.members.listActiveByEmail({ email, limit: MAX_SIGN_IN_MEMBERSHIPS });
    if (candidates.length === 0) {
      await passwords.verifyPassword(password, await passwords.decoyHash());
      throw invalidCredentials();
    }
    const opened: Member[] = [];
    for (const candidate of candidates) if (await passwords.verifyPassword(password, candidate.passwordHash!)) opened.push(candidate);
    const memberships = (await Promise.all(opened.map(async (m) => ({ member: m, merchant: await store.merchants.findById(m.merchantId) }))))
      .filter((o): o is { member: Member; merchant: Merchant } => o.merchant !== null);
    const member = memberships[0]?.member;
    if (!member) throw invalidCredentials();
    const sessionId = newSecret('ms_');
    const at = nowIso();
    const expiresAt = later(policy.sessionMaxMs);
    await store.members.insertSession({ hash: hashToken(sessionId), memberId: member.id, merchantId: member.merchantId, createdAt: at, lastSeenAt: at, expiresAt });
    // Sessions are rows: a script signing in forever must not grow them without bound.
    await store.members.trimSessionsOf({ memberId: member.id, keep: policy.maxSessions });
    return { sessionId, member, expiresAt, memberships };
  }

  /** Ends the session (idempotent: an unknown or ended one is no error). */
  async function logOut(options: { sessionId: string | undefined }): Promise<void> {
    if (options.sessionId) await store.members.deleteSession(hashToken(options.sessionId));
  }

  /**
   * The principal of a session cookie in the mode the request chose: the member as stored now (a
   * removed member or a changed role is seen at once), its merchant, idle and absolute expiry.
   */
  async function authenticateSession(options: { sessionId: string; mode: Mode }): Promise<MerchantPrincipal> {
    if (!isAccountSecret('ms_', options.sessionId)) throw invalidSession();
    const hash = hashToken(options.sessionId);
    const session = await store.members.findSession(hash);
    if (!session) throw invalidSession();
    const now = clock.now().getTime();
    const verdict = sessionVerdict(session, now, policy);
    if (verdict === 'ended') {
      await store.members.deleteSession(hash);
      throw invalidSession();
    }
    const member = await store.members.findById({ id: session.memberId, merchantId: session.merchantId });
    if (member?.status !== 'active') throw invalidSession();
    const merchant = await store.merchants.findById(member.merchantId);
    if (!merchant) throw invalidSession();
    if (verdict === 'touch') await store.members.touchSession({ hash, lastSeenAt: new Date(now).toISOString() });
    return { kind: 'merchant', merchant, mode: options.mode, keyId: `member:${member.id}`, member: { id: member.id, email: member.email, role: member.role } };
  }

  /** Who the caller is: the member (null for an API key), its role, merchant and mode. */
  function describeCaller(options: { principal: MerchantPrincipal }): { member: Member | null; role: MemberRole; merchant: Merchant; mode: Mode } {
    const { principal } = options;
    return { member: null, role: roleOf(principal), merchant: principal.merchant, mode: principal.mode };
  }

  async function me(options: { principal: MerchantPrincipal }) {
    const described = describeCaller(options);
    const { member } = options.principal;
    if (!member) return described;
    const stored = await store.members.findById({ id: member.id, merchantId: options.principal.merchant.id });
    return Object.assign(described, { member: stored });
  }

  async function listMembers(options: { principal: MerchantPrincipal }): Promise<Member[]> {
    assertPermitted(options.principal, 'read');
    return store.members.listByMerchant(options.principal.merchant.id);
  }

  async function findMember(principal: MerchantPrincipal, memberId: string): Promise<Member> {
    const member = await store.members.findById({ id: memberId, merchantId: principal.merchant.id });
    if (!member) throw new AppError('NOT_FOUND', 'No such member in this merchant');
    return member;
  }

  /** A merchant keeps at least one active owner: the store refuses the change that would end the last one (atomically). */
  const lastOwner = () => new AppError('CONFLICT', 'A merchant keeps at least one active owner: make another member owner first');

  /** Removes a member: its sessions end at once (open sockets within the credential recheck). */
  async function removeMember(options: { principal: MerchantPrincipal; memberId: string }): Promise<Member> {
    assertPermitted(options.principal, 'manage');
    const member = await findMember(options.principal, options.memberId);
    const removed = await store.members.remove({ id: member.id, merchantId: member.merchantId });
    if (removed === 'last_owner') throw lastOwner();
    if (!removed) throw new AppError('NOT_FOUND', 'No such member in this merchant');
    return member;
  }

  /** Changes a member's role; the member's sessions end, so the new role applies from its next sign-in. */
  async function changeMemberRole(options: { principal: MerchantPrincipal; input: ChangeMemberRoleCommand }): Promise<Member> {
    assertPermitted(options.principal, 'manage');
    const member = await findMember(options.principal, options.input.memberId);
    if (member.role === options.input.role) return member;
    const updated = await store.members.update({ id: member.id, merchantId: member.merchantId, patch: { role: options.input.role }, updatedAt: nowIso() });
    if (updated === 'last_owner') throw lastOwner();
    if (!updated) throw new AppError('NOT_FOUND', 'No such member in this merchant');
    await store.members.deleteSessionsOf(member.id);
    return updated;
  }

  return { adminInviteMember, adminResetMemberPassword, inviteMember, resetMemberPassword, setPassword, logIn, logOut, authenticateSession, me, listMembers, removeMember, changeMemberRole };
}
