import type { RateLimitDecision, RateLimitOptions, RateLimiter } from '../ports/rate-limiter.js';
import type { AuthService, CourierPrincipal, MerchantPrincipal } from './auth.js';
import { AppError, isAppError } from './errors.js';
import type { CourierSessionService } from './courier-sessions.js';
import type { MemberService, SignedIn } from './members/service.js';
import type { LoginCommand } from './members/schemas.js';
import type { Mode, Operator } from './types.js';
import type { OperatorPrincipal, OperatorService } from './operators/service.js';
import type { OperatorLoginCommand } from './operators/schemas.js';

/** What a caller presented, whatever the entrance: a token (API key, courier or admin token) and its address bucket. */
export interface Credentials {
  token?: string | undefined;
  testMode?: string | undefined;
  /**
   * A team member's session id (the console's cookie). Used only when no token is presented: an
   * API key always wins. Edges accept it only where they enforce CSRF protection (GraphQL).
   */
  session?: string | undefined;
  /**
   * An operator's session id (the ops cookie, issue #29). The edge puts it here instead of
   * `session` when the request asks for the operator scope, so one request is never both.
   */
  operatorSession?: string | undefined;
  /**
   * A courier app's session id (its `exd_courier_session` cookie, issue #27). Used only when no token
   * is presented, and only by courier entrances (which enforce their CSRF header or Origin check).
   */
  courierSession?: string | undefined;
  /** The mode a session caller chose for this request or socket (`X-Mode` / connection_init `mode`): `live` or `test` (default). */
  sessionMode?: string | undefined;
  /** The client's address bucket (src/edge/client-address.ts): IPv4 address or IPv6 /64. */
  address: string;
  /** Two different keys were presented (`Authorization` and `X-API-Key`): refused, whichever is valid. */
  conflictingKeys?: boolean;
}

/** A budget's answer (RateLimit-* headers are made from it at the edge). */
export type BudgetDecision = RateLimitDecision;

export type Caller =
  | { kind: 'merchant'; merchant: MerchantPrincipal; address: string }
  | { kind: 'courier'; courier: CourierPrincipal; address: string }
  | { kind: 'admin'; address: string }
  | { kind: 'operator'; operator: OperatorPrincipal; address: string }
  | { kind: 'anonymous'; address: string };

/** A refusal for want of budget, with the decision the transport turns into RateLimit-* headers. */
export class RateLimitedError extends AppError {
  constructor(readonly decision: RateLimitDecision) {
    super('RATE_LIMITED', `Rate limit of ${decision.limit} requests exceeded; retry in ${Math.max(1, Math.ceil(decision.resetMs / 1000))} s`);
  }
}

export interface FrontDoorLimits {
  merchantPerMin: number;
  courierPerMin: number;
  /** One per-address budget for every anonymous operation of every entrance. */
  anonymousPerMin: number;
  /** Views through one capability tracking link (page, REST, socket connects), whatever the addresses. */
  trackingLinkPerMin: number;
  /** Admin-token failures an address may make before it is locked out, and for how long. */
  adminFailures: number;
  adminLockoutSeconds: number;
  /** How often open sessions' credentials are checked again (revocation reaches them within it). */
  recheckMs: number;
  /** Failed sign-ins per email (the account, whatever merchant) and per address before refusals for `lockoutSeconds`. */
  login: { perEmail: number; perAddress: number; lockoutSeconds: number };
}

export interface FrontDoorLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** Codes that mean "these credentials no longer admit the caller" (anything else is a failure to check). */
const REVOKING = new Set(['INVALID_API_KEY', 'INVALID_COURIER_TOKEN', 'INVALID_ADMIN_TOKEN', 'ACCOUNT_SUSPENDED', 'INVALID_SESSION']);

/** What one guarded sign-in is: its lockout counters and the attempt (whose INVALID_CREDENTIALS is a failure). */
interface GuardedSignIn<T> {
  address: string;
  locks: RateLimitOptions[];
  attempt: () => Promise<T>;
}

export type FrontDoor = ReturnType<typeof createFrontDoor>;

const SWEEP_CONCURRENCY = 32;

/**
 * The one door of every entrance (REST, GraphQL over HTTP and WebSocket, the tracking socket,
 * pages): who the caller is, which budget an operation draws from, and which open sessions lose
 * their right to stay open. Transports only extract the credentials and present the answers.
 */
export function createFrontDoor(deps: { auth: AuthService; members: MemberService; operators?: OperatorService; courierSessions: CourierSessionService; rateLimiter: RateLimiter; limits: FrontDoorLimits; log: FrontDoorLog }) {
  const { auth, members, rateLimiter, limits, log } = deps;
  const lockout = (address: string) => ({ key: `admin-fail:${address}`, limitPerMin: limits.adminFailures, windowSeconds: limits.adminLockoutSeconds });

  async function identifyAdmin(credentials: Credentials, token: string): Promise<Caller> {
    const locked = await rateLimiter.peek(lockout(credentials.address));
    if (!locked.allowed) {
      log.warn({ address: credentials.address }, 'admin token attempt from a locked-out address');
      throw new RateLimitedError(locked);
    }
    try {
      auth.authenticateAdmin({ token });
    } catch (error) {
      const after = await rateLimiter.consume(lockout(credentials.address));
      log.warn({ address: credentials.address, failuresLeft: after.remaining }, 'admin token refused');
      throw error;
    }
    return { kind: 'admin', address: credentials.address };
  }

  /**
   * Resolves the caller. An entrance that serves one kind of caller names it (`as`): its failures are
   * that kind's 401. Otherwise `ak_…` keys are merchants, `ct_…` tokens couriers, anything else is
   * checked as the admin token, and no token is an anonymous caller.
   */
  async function identify(credentials: Credentials, as: 'merchant' | 'courier' | 'any' = 'any'): Promise<Caller> {
    if (credentials.conflictingKeys) {
      throw new AppError('VALIDATION_ERROR', 'Authorization and X-API-Key carry two different keys: send one key (or the same key in both)', {
        fields: [{ field: 'X-API-Key', message: 'differs from the key in Authorization' }],
      });
    }
    const { token, address } = credentials;
    if (as === 'merchant' || (as === 'any' && token?.startsWith('ak_'))) {
      return { kind: 'merchant', merchant: await auth.authenticateApiKey({ apiKey: token, testModeHeader: credentials.testMode }), address };
    }
    if (as === 'courier' && !token && credentials.courierSession) {
      return { kind: 'courier', courier: await deps.courierSessions.authenticateSession({ sessionId: credentials.courierSession }), address };
    }
    if (as === 'courier' || (as === 'any' && token?.startsWith('ct_'))) return { kind: 'courier', courier: await auth.authenticateCourier({ token }), address };
    if (!token && credentials.operatorSession) return { kind: 'operator', operator: await authenticateOperator(credentials.operatorSession), address };
    if (!token && credentials.session) return { kind: 'merchant', merchant: await authenticateSession(credentials, credentials.session), address };
    if (!token) return { kind: 'anonymous', address };
    return identifyAdmin(credentials, token);
  }

  async function authenticateSession(credentials: Credentials, sessionId: string): Promise<MerchantPrincipal> {
    const mode = sessionModeOf(credentials);
    return members.authenticateSession({ sessionId, mode });
  }

  async function authenticateOperator(sessionId: string): Promise<OperatorPrincipal> {
    if (!deps.operators) throw new AppError('INVALID_SESSION', 'Not signed in, or the session has ended: sign in again');
    return deps.operators.authenticateSession({ sessionId });
  }

  const loginLocks = (address: string, input: LoginCommand) => [
    { key: `login-fail-addr:${address}`, limitPerMin: limits.login.perAddress, windowSeconds: limits.login.lockoutSeconds },
    // Per account: the email (a person's memberships share one count, whether the sign-in names a merchant or not).
    { key: `login-fail-email:${input.email}`, limitPerMin: limits.login.perEmail, windowSeconds: limits.login.lockoutSeconds },
  ];

  /**
   * A team member's sign-in, rate-limited like the admin token: failures are counted per address and
   * per email (the account, across its merchants); past either bound the sign-in is refused (RATE_LIMITED, even
   * with the right password) until the window ends. Failures are logged with the address only.
   *
   * Exact under any concurrency: each attempt reserves its unit in both counters (an atomic
   * consume) before the password is hashed, and settles after it — a failure keeps the units, any
   * other outcome (a success, a busy hasher, a store failure) gives them back. A burst that arrives
   * while earlier hashes run finds their reservations already counted, so at most the bound of
   * guesses is ever evaluated, on one node or many.
   */
  async function logIn(options: { address: string; input: LoginCommand }): Promise<SignedIn> {
    return guardedSignIn({ address: options.address, locks: loginLocks(options.address, options.input), attempt: () => members.logIn({ input: options.input }) });
  }

  /**
   * An operator's sign-in (issue #29) under the same exact lockout as a member's: its own counter
   * per email, and the same per-address counter (one address guessing at both counts once).
   */
  async function operatorLogIn(options: { address: string; input: OperatorLoginCommand }): Promise<{ sessionId: string; operator: Operator; expiresAt: string }> {
    const { operators } = deps;
    if (!operators) throw new AppError('SERVICE_UNAVAILABLE', 'Operators are not configured on this node');
    const locks = [
      { key: `login-fail-addr:${options.address}`, limitPerMin: limits.login.perAddress, windowSeconds: limits.login.lockoutSeconds },
      { key: `op-login-fail-email:${options.input.email}`, limitPerMin: limits.login.perEmail, windowSeconds: limits.login.lockoutSeconds },
    ];
    return guardedSignIn({ address: options.address, locks, attempt: () => operators.logIn({ input: options.input }) });
  }

  /**
   * A sign-in rate-limited like the admin token: failures are counted per address and per email;
   * past either bound the sign-in is refused (RATE_LIMITED, even with the right password) until
   * the window ends. Failures are logged with the address only.
   *
   * Exact under any concurrency: each attempt reserves its unit in every counter (an atomic
   * consume) before the password is hashed, and settles after it — a failure keeps the units, any
   * other outcome (a success, a busy hasher, a store failure) gives them back. A burst that arrives
   * while earlier hashes run finds their reservations already counted, so at most the bound of
   * guesses is ever evaluated, on one node or many.
   */
  async function guardedSignIn<T>(options: GuardedSignIn<T>): Promise<T> {
    const reservations = await reserve(options.address, options.locks);
    let failed = false;
    try {
      return await options.attempt();
    } catch (error) {
      failed = isAppError(error) && error.code === 'INVALID_CREDENTIALS';
      if (failed) log.warn({ address: options.address }, 'sign-in refused');
      throw error;
    } finally {
      if (!failed) await giveBack(reservations);
    }
  }

  /**
   * A courier app's sign-in with a link's code (issue #27), rate-limited per address like the
   * members' sign-in: each attempt reserves a unit before the code is checked; a wrong code keeps it.
   */
  async function signInCourier(options: { address: string; input: { code: string } }) {
    const locks = [{ key: `courier-sign-in-fail:${options.address}`, limitPerMin: limits.login.perAddress, windowSeconds: limits.login.lockoutSeconds }];
    const reservations = await reserve(options.address, locks);
    let failed = false;
    try {
      return await deps.courierSessions.signIn({ input: options.input });
    } catch (error) {
      failed = isAppError(error) && error.code === 'SIGN_IN_LINK_INVALID';
      if (failed) log.warn({ address: options.address }, 'courier sign-in link refused');
      throw error;
    } finally {
      if (!failed) await giveBack(reservations);
    }
  }

  interface Reservation {
    lock: RateLimitOptions;
    /** When the unit's window ends: given back later, it would land in the next window as a credit. */
    endsAt: number;
  }

  /** Takes one unit from every lock, or none: a refusal gives back what it took and throws RATE_LIMITED. */
  async function reserve(address: string, locks: RateLimitOptions[]): Promise<Reservation[]> {
    const decisions = await Promise.all(locks.map((lock) => rateLimiter.consume(lock)));
    const reservations = locks.map((lock, i) => ({ lock, endsAt: Date.now() + decisions[i]!.resetMs }));
    const refused = decisions.find((decision) => !decision.allowed);
    if (!refused) return reservations;
    await giveBack(reservations);
    log.warn({ address }, 'sign-in attempt while locked out');
    throw new RateLimitedError(refused);
  }

  /** A unit not given back (the limiter unreachable) only counts against the caller until its window ends. */
  async function giveBack(reservations: Reservation[]): Promise<void> {
    const now = Date.now();
    await Promise.all(
      reservations.filter((r) => r.endsAt > now).map((r) => rateLimiter.reward(r.lock).catch((error: unknown) => log.warn({ err: (error as Error).message }, 'sign-in reservation not given back'))),
    );
  }

  /** Takes one operation from the caller's budget; throws RateLimitedError when it is spent. Admins are not limited. */
  async function admit(caller: Caller): Promise<RateLimitDecision | null> {
    let decision: RateLimitDecision;
    if (caller.kind === 'merchant') {
      const limit = caller.merchant.merchant.rateLimitPerMin ?? limits.merchantPerMin;
      decision = await rateLimiter.consume({ key: `key:${caller.merchant.keyId}`, limitPerMin: limit });
    } else if (caller.kind === 'courier') {
      decision = await rateLimiter.consume({ key: `courier:${caller.courier.courier.id}`, limitPerMin: limits.courierPerMin });
    } else if (caller.kind === 'operator') {
      // A person at a console: the merchant budget, per operator (the admin token is not limited).
      decision = await rateLimiter.consume({ key: `operator:${caller.operator.operator.id}`, limitPerMin: limits.merchantPerMin });
    } else if (caller.kind === 'anonymous') {
      decision = await rateLimiter.consume({ key: `anon:${caller.address}`, limitPerMin: limits.anonymousPerMin });
    } else {
      return null;
    }
    if (!decision.allowed) throw new RateLimitedError(decision);
    return decision;
  }

  /**
   * One operation through a valid capability tracking link (issue #28): budgeted per link, not per
   * address, so many customers behind one carrier-grade NAT each have their own. The caller checked
   * the capability (TrackingLinks.openedBy) first; anything else goes through `admit` as anonymous.
   */
  async function admitTrackingLink(options: { trackingNumber: string }): Promise<RateLimitDecision> {
    const decision = await rateLimiter.consume({ key: `link:${options.trackingNumber}`, limitPerMin: limits.trackingLinkPerMin });
    if (!decision.allowed) throw new RateLimitedError(decision);
    return decision;
  }

  /** identify, then admit: what every operation at every entrance does first. */
  async function enter(credentials: Credentials, as: 'merchant' | 'courier' | 'any' = 'any'): Promise<{ caller: Caller; decision: RateLimitDecision | null }> {
    const caller = await identify(credentials, as);
    return { caller, decision: await admit(caller) };
  }

  /** Whether the credentials still admit the caller (null: they do; else the refusal). Store failures are not refusals. */
  async function checkStillAdmitted(credentials: Credentials): Promise<AppError | null> {
    try {
      const caller = await identify(credentials, !credentials.token && credentials.courierSession ? 'courier' : 'any');
      if (caller.kind === 'merchant') auth.assertMerchantAccess(caller.merchant, { level: 'settings' });
      return null;
    } catch (error) {
      return isAppError(error) && REVOKING.has(error.code) ? error : null;
    }
  }

  // Open sessions by token: each distinct credential is checked once per sweep, however many sockets share it.
  const sessions = new Map<string, { credentials: Credentials; ends: Set<(reason: AppError) => void> }>();
  let sweeping = false;
  const sweep = setInterval(() => {
    if (sweeping || sessions.size === 0) return;
    sweeping = true;
    void sweepSessions().finally(() => (sweeping = false));
  }, limits.recheckMs);
  sweep.unref();

  /**
   * Checks every held credential, SWEEP_CONCURRENCY at a time (a remote store answers in parallel),
   * letting I/O run between groups: SQLite answers synchronously, so 2,000 held courier sockets would
   * otherwise be one ~100 ms stretch without a frame sent.
   */
  async function sweepSessions(): Promise<void> {
    const held = [...sessions];
    for (let i = 0; i < held.length; i += SWEEP_CONCURRENCY) {
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      await Promise.all(
        held.slice(i, i + SWEEP_CONCURRENCY).map(async ([token, session]) => {
          const refusal = await checkStillAdmitted(session.credentials);
          if (!refusal || sessions.get(token) !== session) return;
          sessions.delete(token);
          for (const end of session.ends) end(refusal);
        }),
      );
    }
  }

  /**
   * Keeps an authenticated session (a socket, a subscription) only as long as its credentials
   * admit it: `end` is called within `recheckMs` of a revocation, rotation, suspension or courier
   * disabling. Returns the function that stops watching.
   */
  function holdSession(options: { credentials: Credentials; end: (reason: AppError) => void }): () => void {
    const { credentials } = options;
    if (!credentials.token && !credentials.session && !credentials.operatorSession && !credentials.courierSession) return () => {};
    const token = credentials.token
      ? `${credentials.token}\n${credentials.testMode ?? ''}`
      : credentials.operatorSession
        ? `operator-session\n${credentials.operatorSession}`
        : credentials.courierSession
          ? `courier-session\n${credentials.courierSession}`
        : `session\n${credentials.session}\n${credentials.sessionMode ?? ''}`;
    let session = sessions.get(token);
    if (!session) sessions.set(token, (session = { credentials: options.credentials, ends: new Set() }));
    const { end } = options;
    session.ends.add(end);
    return () => {
      const current = sessions.get(token);
      current?.ends.delete(end);
      if (current?.ends.size === 0) sessions.delete(token);
    };
  }

  /**
   * A stream (a subscription's) that ends with the refusal as its error once the credentials stop
   * admitting the caller; returning or failing releases the hold and the source.
   */
  function holdStream<T>(options: { credentials: Credentials; stream: AsyncIterable<T> }): AsyncIterableIterator<T> {
    const source = options.stream[Symbol.asyncIterator]();
    let refuse!: (reason: AppError) => void;
    const refused = new Promise<never>((_resolve, reject) => (refuse = reject));
    refused.catch(() => {});
    const release = holdSession({ credentials: options.credentials, end: (reason) => refuse(reason) });
    const close = async (value?: unknown): Promise<IteratorResult<T>> => {
      release();
      return (await source.return?.(value)) ?? { done: true, value: undefined };
    };
    return {
      next: () =>
        Promise.race([source.next(), refused]).catch(async (error: unknown) => {
          await close();
          throw error;
        }),
      return: close,
      throw: async (error: unknown) => {
        await close();
        throw error;
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }

  return {
    identify,
    admit,
    admitTrackingLink,
    enter,
    logIn,
    operatorLogIn,
    signInCourier,
    holdSession,
    holdStream,
    stats: () => ({ heldCredentials: sessions.size }),
    close: () => clearInterval(sweep),
  };
}

/** The mode of a session caller: `X-Mode` (`live` | `test`, default `test`); `X-Test-Mode: true` with `live` is a mismatch. */
export function sessionModeOf(credentials: Pick<Credentials, 'sessionMode' | 'testMode'>): Mode {
  const asked = credentials.sessionMode?.trim().toLowerCase() || 'test';
  if (asked !== 'live' && asked !== 'test') throw new AppError('VALIDATION_ERROR', 'X-Mode must be live or test', { fields: [{ field: 'x-mode', message: 'must be live or test' }] });
  if (asked === 'live' && credentials.testMode?.trim().toLowerCase() === 'true') {
    throw new AppError('TEST_MODE_MISMATCH', 'X-Test-Mode: true was sent with X-Mode: live');
  }
  return asked;
}
