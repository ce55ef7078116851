import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import type { CourierPrincipal } from './auth.js';
import { hashToken } from './credentials.js';
import { AppError } from './errors.js';
import type { Courier } from './types.js';
import { parseInput } from './validation.js';

export interface CourierSessionPolicy {
  /** How long a sign-in link works (the team invitations' MEMBER_INVITATION_TTL_HOURS). */
  codeTtlMs: number;
  /** A courier app session is over this long after sign-in. */
  sessionMaxMs: number;
  /** Sessions one courier may hold (phones); a sign-in beyond it ends the oldest. */
  maxSessions: number;
}

export interface CourierSignInLink {
  courierId: string;
  signInUrl: string;
  expiresAt: string;
}

const SESSION_PATTERN = /^cs_[A-Za-z0-9_-]{43}$/;
const CODE_PATTERN = /^cc_[A-Za-z0-9_-]{43}$/;
const newSecret = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;

export const courierSignInCommandSchema = z.strictObject({ code: z.string().max(200) });
export type CourierSignInCommand = z.output<typeof courierSignInCommandSchema>;

const invalidLink = () => new AppError('SIGN_IN_LINK_INVALID', 'This sign-in link is unknown, already used or expired: ask for a new one');
const invalidSession = () => new AppError('INVALID_SESSION', 'Not signed in, or the session has ended: open a new sign-in link');

export type CourierSessionService = ReturnType<typeof createCourierSessionService>;

/**
 * The courier app's sign-in (issue #27): one-time links (single use, expiring, the newest replacing
 * the older ones) exchanged for a browser session. Sessions end with the courier's disabling or
 * token rotation (revokeAll) and are refused once the courier is not active. Codes and session ids
 * are stored by their SHA-256 only and never leave this service but to their holder.
 */
export function createCourierSessionService(deps: { store: Store; clock: Clock; policy: CourierSessionPolicy; publicBaseUrl: () => string }) {
  const { store, clock, policy } = deps;
  const nowIso = () => clock.now().toISOString();
  const later = (ms: number) => new Date(clock.now().getTime() + ms).toISOString();

  /** A new sign-in link for the courier; the older unused ones stop working. */
  async function issueSignInLink(options: { courierId: string }): Promise<CourierSignInLink> {
    const code = newSecret('cc_');
    const expiresAt = later(policy.codeTtlMs);
    await store.courierSessions.replaceSignInCode({ hash: hashToken(code), courierId: options.courierId, createdAt: nowIso(), expiresAt, usedAt: null });
    // In the fragment: browsers never send it to a server, so no access log or Referer carries it.
    return { courierId: options.courierId, signInUrl: `${deps.publicBaseUrl()}/courier/welcome#code=${code}`, expiresAt };
  }

  /** The admin's `courier:invite`: a new link for a courier that exists and is active. */
  async function inviteCourier(options: { courierId: string }): Promise<CourierSignInLink> {
    const courier = await store.couriers.findById(options.courierId);
    if (!courier) throw new AppError('COURIER_NOT_FOUND', `No courier ${options.courierId}`);
    if (courier.accountStatus !== 'active') throw new AppError('CONFLICT', 'This courier is disabled: enable it first (courier:enable)');
    return issueSignInLink({ courierId: courier.id });
  }

  /** A link's code → a new session. Every failure is the same SIGN_IN_LINK_INVALID. */
  async function signIn(options: { input: CourierSignInCommand }): Promise<{ sessionId: string; courier: Courier; expiresAt: string }> {
    const { code } = parseInput(courierSignInCommandSchema, options.input);
    if (!CODE_PATTERN.test(code)) throw invalidLink();
    const used = await store.courierSessions.consumeSignInCode({ hash: hashToken(code), now: nowIso() });
    if (!used) throw invalidLink();
    const courier = await store.couriers.findById(used.courierId);
    if (courier?.accountStatus !== 'active') throw invalidLink();
    const sessionId = newSecret('cs_');
    const at = nowIso();
    const expiresAt = later(policy.sessionMaxMs);
    await store.courierSessions.insertSession({ hash: hashToken(sessionId), courierId: courier.id, createdAt: at, expiresAt });
    await store.courierSessions.trimSessionsOf({ courierId: courier.id, keep: policy.maxSessions });
    return { sessionId, courier, expiresAt };
  }

  /** Ends the session (idempotent). */
  async function signOut(options: { sessionId: string | undefined }): Promise<void> {
    if (options.sessionId && SESSION_PATTERN.test(options.sessionId)) await store.courierSessions.deleteSession(hashToken(options.sessionId));
  }

  /** The courier of a session cookie, as stored now: refused once the session ended or the courier is disabled. */
  async function authenticateSession(options: { sessionId: string }): Promise<CourierPrincipal> {
    if (!SESSION_PATTERN.test(options.sessionId)) throw invalidSession();
    const hash = hashToken(options.sessionId);
    const session = await store.courierSessions.findSession(hash);
    if (!session) throw invalidSession();
    if (clock.now().getTime() >= Date.parse(session.expiresAt)) {
      await store.courierSessions.deleteSession(hash);
      throw invalidSession();
    }
    const courier = await store.couriers.findById(session.courierId);
    if (courier?.accountStatus !== 'active') throw invalidSession();
    return { kind: 'courier', courier };
  }

  /** Every session and unused link of the courier end (disable, token rotation). */
  async function revokeAll(options: { courierId: string }): Promise<number> {
    return store.courierSessions.deleteAllOf(options.courierId);
  }

  return { issueSignInLink, inviteCourier, signIn, signOut, authenticateSession, revokeAll };
}
