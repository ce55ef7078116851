import type { IncomingMessage, ServerResponse } from 'node:http';
import type { IdempotentCall } from '../src/domain/idempotency.js';

/** The request header, as documented (requests may spell it in any case). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Sent on every answer given again for a repeated key (successes and kept 4xx errors alike). */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** The `Idempotency-Key` header as sent (validated by the domain), or undefined. */
export const idempotencyKeyOf = (req: IncomingMessage): string | undefined => {
  const key = req.headers['idempotency-key'];
  return typeof key === 'string' ? key : undefined;
};

/** The domain's field names of idempotency errors → the REST request's: the key is a header (applied to every error, rest/middleware/errors.ts). */
export const IDEMPOTENCY_FIELD_NAMES: Record<string, string> = { idempotencyKey: IDEMPOTENCY_KEY_HEADER };

export const markReplayed = (res: ServerResponse): void => void res.setHeader(REPLAYED_HEADER, 'true');

/**
 * What a route passes to an idempotent write command (src/domain/idempotency.ts): the request's
 * `Idempotency-Key`, and the hook that marks a replayed answer (a kept 4xx error too) with
 * `Idempotent-Replayed: true`. The command owns the rest: its operation, scope and fingerprint.
 */
export const idempotencyOf = (req: IncomingMessage, res: ServerResponse): IdempotentCall => ({
  idempotencyKey: idempotencyKeyOf(req), onReplayed: () => markReplayed(res),
});
