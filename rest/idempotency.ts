import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response } from 'express';
import { isReplayedError, type IdempotencyScope } from '../src/domain/idempotency.js';
import type { Edge } from '../src/edge/edge.js';
import { inCallerTerms } from './respond.js';

/** The request header, as documented (requests may spell it in any case). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Sent on every answer given again for a repeated key (successes and kept 4xx errors alike). */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** The `Idempotency-Key` header as sent (validated by the domain), or undefined. */
export const idempotencyKeyOf = (req: IncomingMessage): string | undefined => {
  const key = req.headers['idempotency-key'];
  return typeof key === 'string' ? key : undefined;
};

/** The domain's field names of idempotency errors → the REST request's: the key is a header. */
export const IDEMPOTENCY_FIELD_NAMES: Record<string, string> = { idempotencyKey: IDEMPOTENCY_KEY_HEADER };

export const markReplayed = (res: ServerResponse): void => void res.setHeader(REPLAYED_HEADER, 'true');

/**
 * Runs one state-changing operation under the request's `Idempotency-Key` (none: it just runs).
 * `request` is the parsed target and command that a repeated key must repeat. A replayed answer
 * (a kept 4xx error too) carries `Idempotent-Replayed: true`.
 */
export async function idempotently<T>(
  edge: Edge,
  req: Request,
  res: Response,
  options: { scope: IdempotencyScope; request: unknown; execute: () => Promise<T>; keyRequired?: boolean },
): Promise<T> {
  const { value, replayed } = await edge.services.idempotency.runIdempotent(Object.assign({ key: idempotencyKeyOf(req) }, options)).catch((error: unknown) => {
    if (isReplayedError(error)) markReplayed(res);
    return inCallerTerms(IDEMPOTENCY_FIELD_NAMES)(error);
  });
  if (replayed) markReplayed(res);
  return value;
}
