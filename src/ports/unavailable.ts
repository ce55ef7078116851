/**
 * The port-level "a backing store cannot be reached right now": adapters raise it (or let their
 * driver's own connection failures through, recognised below), edges answer 503 SERVICE_UNAVAILABLE.
 */
export class StoreUnavailableError extends Error {
  constructor(message = 'store unavailable', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** Driver errors that mean "the store cannot be reached right now" (no driver import: matched by name/code). */
const UNAVAILABLE_NAMES = new Set([
  'MongoServerSelectionError', 'MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoNotConnectedError', 'MongoTopologyClosedError', 'MongoPoolClearedError',
]);
const UNAVAILABLE_CODE = /^(SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|READONLY)|ECONNREFUSED|ETIMEDOUT)/;

export function isUnavailable(error: unknown): boolean {
  const e = error as { name?: string; code?: unknown } | null;
  if (error instanceof StoreUnavailableError) return true;
  return !!e && (UNAVAILABLE_NAMES.has(e.name ?? '') || UNAVAILABLE_CODE.test(String(e.code ?? '')));
}
