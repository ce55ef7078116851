/**
 * What a store that answers says of itself: `ok`, or `degraded` with the reason (another process
 * holds the write lock, the disk is full, the file cannot be written…). Reads still answer while it
 * is degraded; writes answer 503 SERVICE_UNAVAILABLE with Retry-After. It returns to `ok` on its own.
 */
export type StoreCondition = { status: 'ok' } | { status: 'degraded'; reason: string };

export const STORE_OK: StoreCondition = Object.freeze({ status: 'ok' });
