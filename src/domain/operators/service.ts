import type { Clock } from '../../ports/clock.js';
import type { IdSource } from '../../ports/ids.js';
import type { Store } from '../../ports/store.js';
import { hashToken } from '../credentials.js';
import { AppError } from '../errors.js';
import { isAccountSecret, newAccountSecret, sessionVerdict, type SessionPolicy } from '../members/accounts.js';
import type { PasswordHasher } from '../members/passwords.js';
import type { Operator, OperatorRole } from '../types.js';
import { parseInput } from '../validation.js';
import {
  inviteOperatorCommandSchema,
  operatorEmailCommandSchema,
  setOperatorRoleCommandSchema,
  setOperatorStatusCommandSchema,
  type OperatorLoginCommand,
  type OperatorSetPasswordCommand,
} from './schemas.js';

/** A signed-in operator, as the front door hands it on: never a merchant member. */
export interface OperatorPrincipal {
  kind: 'operator';
  operator: { id: string; email: string; role: OperatorRole };
}

export interface OperatorInvitation {
  operator: Operator;
  /** The one-time link (shown once; only its hash is stored). */
  setPasswordUrl: string;
  expiresAt: string;
}

/** The session id's prefix: a member's session (`ms_`) never has this shape, nor the reverse. */
export const OPERATOR_SESSION_PREFIX = 'os_';

const invalidCredentials = () => new AppError('INVALID_CREDENTIALS', 'Email or password is not right');
const invalidSession = () => new AppError('INVALID_SESSION', 'Not signed in, or the session has ended: sign in again');
const invalidToken = () => new AppError('PASSWORD_TOKEN_INVALID', 'This set-password link is not valid: it was used, has expired or was replaced');
const notFound = () => new AppError('NOT_FOUND', 'No such operator');

export type OperatorService = ReturnType<typeof createOperatorService>;

/**
 * Operators (issue #29): the people who run the service. Invited from the CLI (or by an admin
 * operator) with a one-time set-password link, they sign in with email and password into a
 * session of their own scope (cookie `exd_ops_session`). Links, sessions, passwords, the session
 * cap and the expiry rules are the team members' (src/domain/members/): the same hasher, the same
 * SessionPolicy, the same secrets; the front door applies the same exact lockout.
 */
export function createOperatorService(deps: { store: Store; clock: Clock; ids: IdSource; passwords: PasswordHasher; policy: SessionPolicy; publicBaseUrl: () => string }) {
  const { store, clock, ids, passwords, policy } = deps;
  const nowIso = () => clock.now().toISOString();
  const later = (ms: number) => new Date(clock.now().getTime() + ms).toISOString();

  async function issueLink(operator: Operator): Promise<OperatorInvitation> {
    const token = newAccountSecret('pt_');
    const expiresAt = later(policy.invitationTtlMs);
    await store.operators.replacePasswordToken({ hash: hashToken(token), operatorId: operator.id, createdAt: nowIso(), expiresAt, usedAt: null });
    // In the fragment: browsers never send it to a server, so no access log or Referer carries it.
    return { operator, setPasswordUrl: `${deps.publicBaseUrl()}/ops/set-password#token=${token}`, expiresAt };
  }

  /**
   * A new operator with a set-password link. An email invited but without a password yet gets a
   * new link (the old one stops working) and the role asked for; an active or disabled operator is
   * a CONFLICT (a forgotten password is resetOperatorPassword; a disabled one is enabled).
   */
  async function inviteOperator(options: { input: unknown }): Promise<OperatorInvitation> {
    const input = parseInput(inviteOperatorCommandSchema, options.input);
    const at = nowIso();
    const fresh: Operator = { id: ids.next('op'), email: input.email, role: input.role, status: 'invited', passwordHash: null, createdAt: at, updatedAt: at };
    if (await store.operators.insert(fresh)) return issueLink(fresh);
    const existing = await store.operators.findByEmail(input.email);
    if (!existing) throw new AppError('CONFLICT', 'This email was invited concurrently; try again');
    if (existing.status !== 'invited') throw new AppError('CONFLICT', `This email already belongs to an operator (${existing.status})`);
    // Invited, so not an admin whose loss could leave none: the update is never refused as 'last_admin'.
    const updated = existing.role === input.role ? existing : await store.operators.update({ id: existing.id, patch: { role: input.role }, updatedAt: at });
    return issueLink(updated && updated !== 'last_admin' ? updated : existing);
  }

  /**
   * Whether a start should print the first operator's set-up link (issue #38 item 1): no operator
   * is active yet and the bootstrap email is free or still invited (its older link then stops working).
   */
  async function needsFirstOperator(options: { email: string }): Promise<boolean> {
    const all = await store.operators.list();
    if (all.some((o) => o.status === 'active')) return false;
    const bootstrap = all.find((o) => o.email === options.email);
    return bootstrap ? bootstrap.status === 'invited' : all.length === 0;
  }

  /** A new link for an operator who forgot the password: the old password works until the link is used. */
  async function resetOperatorPassword(options: { input: unknown }): Promise<OperatorInvitation> {
    const input = parseInput(operatorEmailCommandSchema, options.input);
    const operator = await store.operators.findByEmail(input.email);
    if (!operator) throw notFound();
    if (operator.status === 'disabled') throw new AppError('CONFLICT', 'This operator is disabled: enable it first');
    return issueLink(operator);
  }

  /** Uses a link once: the operator gets the password, becomes active, and every session it had ends. */
  async function setPassword(options: { input: OperatorSetPasswordCommand }): Promise<{ email: string }> {
    // The hashing turn comes first: a busy node refuses before the one-time link is used up.
    const claimed = await passwords.hashPasswordFor(options.input.password, () => store.operators.consumePasswordToken({ hash: hashToken(options.input.token), now: nowIso() }));
    if (!claimed) throw invalidToken();
    const current = await store.operators.findById(claimed.claimed.operatorId);
    // A link issued before the operator was disabled does not bring it back.
    if (!current || current.status === 'disabled') throw invalidToken();
    const operator = await store.operators.update({ id: current.id, patch: { passwordHash: claimed.passwordHash, status: 'active' }, updatedAt: nowIso() });
    // Making an operator active never ends an admin, so 'last_admin' cannot come back.
    if (!operator || operator === 'last_admin') throw invalidToken();
    await store.operators.deleteSessionsOf(operator.id);
    return { email: operator.email };
  }

  /**
   * Email and password → a session. Every failure is the same INVALID_CREDENTIALS, and an unknown
   * email still costs one scrypt verification (no enumeration by answer or time). The front door
   * wraps it in the exact lockout (FrontDoor.operatorLogIn).
   */
  async function logIn(options: { input: OperatorLoginCommand }): Promise<{ sessionId: string; operator: Operator; expiresAt: string }> {
    const { email, password } = options.input;
    const operator = await store.operators.findByEmail(email);
    const usable = operator?.status === 'active' && operator.passwordHash !== null;
    const matches = await passwords.verifyPassword(password, usable ? operator.passwordHash! : await passwords.decoyHash());
    if (!usable || !matches) throw invalidCredentials();
    const sessionId = newAccountSecret(OPERATOR_SESSION_PREFIX);
    const at = nowIso();
    const expiresAt = later(policy.sessionMaxMs);
    await store.operators.insertSession({ hash: hashToken(sessionId), operatorId: operator.id, createdAt: at, lastSeenAt: at, expiresAt });
    await store.operators.trimSessionsOf({ operatorId: operator.id, keep: policy.maxSessions });
    return { sessionId, operator, expiresAt };
  }

  async function logOut(options: { sessionId: string | undefined }): Promise<void> {
    if (options.sessionId && isAccountSecret(OPERATOR_SESSION_PREFIX, options.sessionId)) await store.operators.deleteSession(hashToken(options.sessionId));
  }

  /** The operator of a session cookie, as stored now (a disabled operator or a changed role is seen at once). */
  async function authenticateSession(options: { sessionId: string }): Promise<OperatorPrincipal> {
    if (!isAccountSecret(OPERATOR_SESSION_PREFIX, options.sessionId)) throw invalidSession();
    const hash = hashToken(options.sessionId);
    const session = await store.operators.findSession(hash);
    if (!session) throw invalidSession();
    const now = clock.now().getTime();
    const verdict = sessionVerdict(session, now, policy);
    if (verdict === 'ended') {
      await store.operators.deleteSession(hash);
      throw invalidSession();
    }
    const operator = await store.operators.findById(session.operatorId);
    if (operator?.status !== 'active') throw invalidSession();
    if (verdict === 'touch') await store.operators.touchSession({ hash, lastSeenAt: new Date(now).toISOString() });
    return { kind: 'operator', operator: { id: operator.id, email: operator.email, role: operator.role } };
  }

  async function getOperator(id: string): Promise<Operator> {
    const operator = await store.operators.findById(id);
    if (!operator) throw notFound();
    return operator;
  }

  /** At least one active admin always stays: the store refuses the change that would end the last one (atomically). */
  const lastAdmin = () => new AppError('CONFLICT', 'At least one active admin operator must stay: make another operator admin first', { details: { reason: 'last_admin' } });

  /** Disables (its sessions end at once) or enables an operator; enabled without a password, it stays invited. */
  async function setOperatorStatus(options: { input: unknown }): Promise<{ before: Operator; after: Operator }> {
    const input = parseInput(setOperatorStatusCommandSchema, options.input);
    const before = await getOperator(input.operatorId);
    const status = input.status === 'disabled' ? 'disabled' : before.passwordHash === null ? 'invited' : 'active';
    const after = (await store.operators.update({ id: before.id, patch: { status }, updatedAt: nowIso() })) ?? before;
    if (after === 'last_admin') throw lastAdmin();
    if (status === 'disabled') await store.operators.deleteSessionsOf(before.id);
    return { before, after };
  }

  /** Changes an operator's role; its sessions end, so the new role applies from its next sign-in. */
  async function setOperatorRole(options: { input: unknown }): Promise<{ before: Operator; after: Operator }> {
    const input = parseInput(setOperatorRoleCommandSchema, options.input);
    const before = await getOperator(input.operatorId);
    if (before.role === input.role) return { before, after: before };
    const after = (await store.operators.update({ id: before.id, patch: { role: input.role }, updatedAt: nowIso() })) ?? before;
    if (after === 'last_admin') throw lastAdmin();
    await store.operators.deleteSessionsOf(before.id);
    return { before, after };
  }

  return {
    inviteOperator, needsFirstOperator, resetOperatorPassword, setPassword, logIn, logOut, authenticateSession, getOperator, setOperatorStatus, setOperatorRole,
    listOperators: () => store.operators.list(),
  };
}
