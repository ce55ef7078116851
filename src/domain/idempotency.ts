import { hash } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../ports/clock.js';
import type { IdSource } from '../ports/ids.js';
import type { IdempotentWriteKey, Store } from '../ports/store.js';
import type { MerchantPrincipal } from './auth.js';
import { AppError, GeofenceError, type ErrorCode, type FieldError } from './errors.js';
import type { Courier, Mode } from './types.js';

/** Idempotency-Key header: printable ASCII, bounded. */
export const idempotencyKeySchema = z.string().trim().min(1).max(255).regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');

/**
 * The key as given, checked; a bad one is a VALIDATION_ERROR on field `idempotencyKey` (never the
 * body's): each transport names it its own way (REST: the `Idempotency-Key` header).
 */
export function parseIdempotencyKey(key: string): string {
  const parsed = idempotencyKeySchema.safeParse(key);
  if (parsed.success) return parsed.data;
  const message = parsed.error.issues[0]?.message ?? 'is invalid';
  throw new AppError('VALIDATION_ERROR', `Invalid idempotency key: ${message}`, { fields: [{ field: 'idempotencyKey', message }] });
}

/** The value with every object's keys sorted. */
const canonical = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(canonical)
    : v && typeof v === 'object'
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]))
      : v;

/** Canonical JSON (sorted keys) so the same body always hashes the same. */
export function requestHash(body: unknown): string {
  return hash('sha256', JSON.stringify(canonical(body) ?? null), 'hex');
}

/** Answers are kept this long per key (as for order creation). */
export const IDEMPOTENT_WRITE_TTL_MS = 24 * 3_600_000;
/** A claim whose write has not answered by then is taken to be abandoned (its node died): the key may run again. */
export const IDEMPOTENT_WRITE_LOCK_MS = 60_000;

/**
 * The name an idempotent write command's records carry (`orders.cancel`): each command declares
 * its own, once, as a constant next to it (docs/development/idempotency.md). REST and GraphQL
 * reach the same command, so one key on one operation is one record whichever entrance it used.
 */
export type IdempotentOperation = `${string}.${string}`;

/**
 * Whose key it is: the merchant (per mode) or the courier (whose account has one mode). A signed-in
 * team member has keys of their own (`ownerId` `<merchant id>/member:<member id>`): role checks run
 * inside the write, so a shared record would let a viewer replay a dispatcher's answer, or a
 * viewer's refusal block a dispatcher. API keys act as the merchant and keep the merchant's scope.
 */
export interface IdempotencyScope {
  ownerId: string;
  mode: Mode;
  operation: IdempotentOperation;
}

export const merchantScope = (principal: MerchantPrincipal, operation: IdempotentOperation): IdempotencyScope => ({
  ownerId: principal.member ? `${principal.merchant.id}/member:${principal.member.id}` : principal.merchant.id, mode: principal.mode, operation,
});
export const courierScope = (courier: Pick<Courier, 'id' | 'mode'>, operation: IdempotentOperation): IdempotencyScope => ({
  ownerId: courier.id, mode: courier.mode, operation,
});

/** What a record keeps: the result (as JSON) or the 4xx error the write ended with. */
type Outcome =
  | { ok: true; value: unknown }
  | { ok: false; code: ErrorCode; message: string; fields?: FieldError[]; details?: Record<string, unknown> };

function errorOf(outcome: Extract<Outcome, { ok: false }>): AppError {
  const { distance_m: distanceM, radius_m: radiusM } = (outcome.details ?? {}) as { distance_m?: number; radius_m?: number };
  if (outcome.code === 'GEOFENCE_FAILED' && typeof distanceM === 'number' && typeof radiusM === 'number') return new GeofenceError({ distanceM, radiusM });
  return new AppError(outcome.code, outcome.message, { ...(outcome.fields && { fields: outcome.fields }), ...(outcome.details && { details: outcome.details }) });
}

const replayedErrors = new WeakSet<AppError>();

/** Whether an error is a kept 4xx answer given again for a repeated key (REST says so with `Idempotent-Replayed`). */
export const isReplayedError = (error: unknown): boolean => error instanceof AppError && replayedErrors.has(error);

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;

/**
 * What an idempotent write command takes beside its own options: the caller's key (none: the
 * command just runs, unless it requires one) and a hook told when the answer is a replay, a kept
 * 4xx error included (REST says so with `Idempotent-Replayed`).
 */
export interface IdempotentCall {
  idempotencyKey?: string | undefined;
  onReplayed?: (() => void) | undefined;
}

/** How a command runs under a key: whose key it is (naming the operation) and what a repeated key must repeat. */
export interface KeyedRun {
  scope: IdempotencyScope;
  /** The command's target and parsed input, never the caller's identity (that is the scope). */
  request: unknown;
  /** Money moves run only under a key. */
  keyRequired?: boolean;
}

/**
 * Idempotency keys on every state-changing operation (issue #17 item 5), one mechanism for all:
 * the key is claimed in the store (one atomic write: of concurrent requests one runs the write),
 * the write runs, and its answer is stored with the claim. The same key and request then get that
 * answer back; another request under the key is 422 IDEMPOTENCY_KEY_REUSED; a request arriving
 * while the first still runs is 409 IDEMPOTENCY_KEY_IN_FLIGHT. 4xx errors of the write are
 * answers too (kept and replayed, as Stripe does); a 401/403, a 5xx or an unavailable store keeps
 * nothing, so a retry runs the write again.
 */
export function createIdempotencyService(deps: { store: Store; clock: Clock; ids: IdSource }) {
  const { store, clock, ids } = deps;

  /**
   * Runs `execute` at most once per key, scope and request. `request` is what makes two requests
   * "the same": the operation's target and parsed command, never the caller's identity (that is
   * the scope). The value is returned as stored (JSON), so a replay answers exactly what the
   * first request did. Without a key, `execute` just runs (or, with `keyRequired`, is refused: 400).
   */
  async function runIdempotent<T>(options: { scope: IdempotencyScope; key: string | undefined; request: unknown; execute: () => Promise<T>; keyRequired?: boolean }): Promise<{ value: T; replayed: boolean }> {
    if (options.key === undefined && options.keyRequired) {
      // Money moves (a tip) run only under a key: a retry after a lost answer must not pay twice.
      throw new AppError('VALIDATION_ERROR', 'This operation requires an idempotency key', { fields: [{ field: 'idempotencyKey', message: 'is required' }] });
    }
    if (options.key === undefined) return { value: await options.execute(), replayed: false };
    const key = parseIdempotencyKey(options.key);
    const record: IdempotentWriteKey = Object.assign({}, options.scope, { key });
    const fingerprint = requestHash(options.request);
    const token = ids.next('idem');
    const now = clock.now();
    const claim = await store.idempotentWrites.claim(
      Object.assign({}, record, {
        fingerprint, token, outcome: null, createdAt: now.toISOString(),
        lockedUntil: new Date(now.getTime() + IDEMPOTENT_WRITE_LOCK_MS).toISOString(),
        expiresAt: new Date(now.getTime() + IDEMPOTENT_WRITE_TTL_MS).toISOString(),
      }),
      now.toISOString(),
    );
    if (!claim.claimed) {
      if (claim.existing.fingerprint !== fingerprint) {
        throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This idempotency-key was already used with a different request');
      }
      if (claim.existing.outcome === null) {
        throw new AppError('IDEMPOTENCY_KEY_IN_FLIGHT', 'A request with this idempotency-key is still being processed; retry shortly');
      }
      try {
        return { value: answerOf<T>(claim.existing.outcome), replayed: true };
      } catch (error) {
        replayedErrors.add(error as AppError);
        throw error;
      }
    }
    let outcome: string;
    try {
      outcome = JSON.stringify({ ok: true, value: (await options.execute()) ?? null } satisfies Outcome);
    } catch (error) {
      // 401/403 (a role or account refusal) is about the caller, not the request: kept, it would
      // outlive a change of role or status, so it keeps nothing, as a 5xx.
      if (!(error instanceof AppError) || error.status >= 500 || error.status === 401 || error.status === 403) {
        await store.idempotentWrites.release(Object.assign({ token }, record)).catch(() => undefined);
        throw error;
      }
      const stored: Outcome = { ok: false, code: error.code, message: error.message, ...(error.fields && { fields: error.fields }), ...(error.details && { details: error.details }) };
      await store.idempotentWrites.complete(Object.assign({ token, outcome: JSON.stringify(stored) }, record)).catch(() => undefined);
      throw error;
    }
    // The write is done: failing to record its answer must not turn it into an error. The claim
    // then runs out (IDEMPOTENT_WRITE_LOCK_MS) and a retry runs the write again.
    await store.idempotentWrites.complete(Object.assign({ token, outcome }, record)).catch(() => undefined);
    return { value: answerOf<T>(outcome), replayed: false };
  }

  /**
   * A write command's body under its caller's key (`call`): the way every idempotent service
   * method runs, so the edges only pass the key on. Replays (kept errors too) are told to
   * `call.onReplayed`.
   */
  async function runCommand<T>(call: IdempotentCall, run: KeyedRun, execute: () => Promise<T>): Promise<T> {
    try {
      const { value, replayed } = await runIdempotent({ scope: run.scope, key: call.idempotencyKey, request: run.request, execute, keyRequired: run.keyRequired ?? false });
      if (replayed) call.onReplayed?.();
      return value;
    } catch (error) {
      if (isReplayedError(error)) call.onReplayed?.();
      throw error;
    }
  }

  return { runIdempotent, runCommand };
}

function answerOf<T>(outcome: string): T {
  const parsed = JSON.parse(outcome) as Outcome;
  if (!parsed.ok) throw errorOf(parsed);
  return parsed.value as T;
}
