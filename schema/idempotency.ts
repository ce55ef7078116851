/**
 * The description of every mutation's `idempotencyKey` argument. The mutation passes the key to its
 * domain command, which owns the rest (docs/development/idempotency.md).
 */
export const IDEMPOTENCY_KEY_DESCRIPTION =
  'Makes a retry safe (as the REST Idempotency-Key header, sharing its records): the same key with the same arguments answers ' +
  'what the first call answered without running it again; other arguments: IDEMPOTENCY_KEY_REUSED; while the first call runs: ' +
  'IDEMPOTENCY_KEY_IN_FLIGHT. Printable ASCII, up to 255 characters, kept 24 h.';
