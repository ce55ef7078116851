import type { Request, Response } from 'express';
import type { IdempotencyScope } from '../src/domain/idempotency.js';
import type { Edge } from '../src/edge/edge.js';

/** The `Idempotency-Key` header as sent (validated by the domain), or undefined. */
export const idempotencyKeyOf = (req: Request): string | undefined => {
  const key = req.headers['idempotency-key'];
  return typeof key === 'string' ? key : undefined;
};

/**
 * Runs one state-changing operation under the request's `Idempotency-Key` (none: it just runs).
 * `request` is the parsed target and command that a repeated key must repeat. A replayed answer
 * carries `Idempotent-Replayed: true`.
 */
export async function idempotently<T>(
  edge: Edge,
  req: Request,
  res: Response,
  options: { scope: IdempotencyScope; request: unknown; execute: () => Promise<T> },
): Promise<T> {
  const { value, replayed } = await edge.services.idempotency.runIdempotent(Object.assign({ key: idempotencyKeyOf(req) }, options));
  if (replayed) res.setHeader('Idempotent-Replayed', 'true');
  return value;
}
