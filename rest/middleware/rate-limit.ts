import type { Response } from 'express';
import { AppError } from '../../src/domain/errors.js';
import type { RateLimiter } from '../../src/ports/rate-limiter.js';

/** Consumes one request from the bucket, sets the RateLimit-* headers, and throws 429 when empty. */
export async function applyRateLimit(res: Response, limiter: RateLimiter, key: string, limitPerMin: number): Promise<void> {
  const decision = await limiter.consume({ key, limitPerMin });
  const resetSeconds = Math.max(1, Math.ceil(decision.resetMs / 1000));
  res.setHeader('RateLimit-Limit', String(decision.limit));
  res.setHeader('RateLimit-Remaining', String(decision.remaining));
  res.setHeader('RateLimit-Reset', String(resetSeconds));
  if (!decision.allowed) {
    res.setHeader('Retry-After', String(resetSeconds));
    throw new AppError('RATE_LIMITED', `Rate limit of ${decision.limit} requests per minute exceeded; retry in ${resetSeconds} s`);
  }
}
