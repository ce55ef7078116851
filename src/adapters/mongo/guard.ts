import { StoreUnavailableError } from '../../ports/unavailable.js';
import { isMongoUnavailable, toStoreUnavailable } from './failures.js';

/** Writes whose repetition leaves the same end state (only a returned count may be lower on the second run). */
const IDEMPOTENT_WRITES = new Set(['couriers.setLocations', 'webhooks.requeue', 'apiKeys.revoke']);

/** Reads, and the writes above: run again once when MongoDB was unavailable and time is left. */
export function isIdempotent(what: string): boolean {
  const method = what.slice(what.indexOf('.') + 1);
  return /^(find|list|count)/.test(method) || IDEMPOTENT_WRITES.has(what);
}

/** Below this much time left, a retry could only end in the deadline: give up at once. */
const MIN_RETRY_MS = 150;

/** After a call waited in vain for MongoDB, the store's calls fail at once for this long. */
export const FAIL_FAST_MS = 1000;

/**
 * Shared by a store's repositories: until when its calls fail at once. A request making two store
 * calls (credentials, then its own write) would otherwise wait out two deadlines while MongoDB is
 * away, past the 2 s every request must answer in.
 */
export interface StoreCircuit {
  failFastUntil: number;
}

/**
 * Every call of a MongoDB repository gets a hard deadline and one vocabulary of failure: an
 * unavailable MongoDB (network, step-down, write concern, server selection, our own deadline)
 * always surfaces as StoreUnavailableError, whatever the driver threw; an idempotent call is
 * retried once first. The driver's own timeouts (database.ts) end the abandoned operation soon after.
 */
export function guardRepository<T extends object>(name: string, repository: T, deadlineMs: number, circuit: StoreCircuit = { failFastUntil: 0 }): T {
  const guarded = {} as Record<string, unknown>;
  for (const [method, fn] of Object.entries(repository)) {
    if (typeof fn !== 'function') {
      guarded[method] = fn;
      continue;
    }
    const what = `${name}.${method}`;
    const retry = isIdempotent(what);
    guarded[method] = async (...args: unknown[]) => {
      const started = Date.now();
      if (started < circuit.failFastUntil) throw new StoreUnavailableError(`MongoDB did not answer a moment ago: ${what} not tried`);
      for (let attempt = 1; ; attempt++) {
        try {
          return await withinDeadline(() => (fn as (...a: unknown[]) => Promise<unknown>).apply(repository, args), deadlineMs - (Date.now() - started), what);
        } catch (error) {
          if (!isMongoUnavailable(error)) throw error;
          const left = deadlineMs - (Date.now() - started);
          if (attempt === 1 && retry && left >= MIN_RETRY_MS && !(error instanceof StoreUnavailableError)) continue;
          // Only a wait (no answer, server selection) opens the circuit; a quick refusal costs nothing to repeat.
          if (Date.now() - started >= deadlineMs / 2) circuit.failFastUntil = Date.now() + FAIL_FAST_MS;
          throw toStoreUnavailable(error, what);
        }
      }
    };
  }
  return guarded as T;
}

/** Runs `call`, rejecting with StoreUnavailableError when it has not settled within `ms`. */
export async function withinDeadline<T>(call: () => Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError(`MongoDB did not answer ${what} within its deadline`)), Math.max(0, ms));
  });
  const running = call();
  // The abandoned operation may still fail later: that must not become an unhandled rejection.
  running.catch(() => {});
  try {
    return await Promise.race([running, expired]);
  } finally {
    clearTimeout(timer);
  }
}
