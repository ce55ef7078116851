import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimitDecision, RateLimiter } from '../ports/rate-limiter.js';

/**
 * Both adapters use rate-limiter-flexible; one limiter per distinct limit value, since a
 * limiter's points are fixed. The Redis one falls back to an in-memory limiter (per node) while
 * Redis is unreachable, so the API keeps answering with degraded, per-node limits.
 */
function createLimiterPool(make: (points: number) => RateLimiterAbstract): RateLimiter {
  const limiters = new Map<number, RateLimiterAbstract>();
  const limiterFor = (points: number) => {
    let limiter = limiters.get(points);
    if (!limiter) limiters.set(points, (limiter = make(points)));
    return limiter;
  };
  return {
    async consume({ key, limitPerMin }): Promise<RateLimitDecision> {
      try {
        const res = await limiterFor(limitPerMin).consume(key, 1);
        return { allowed: true, limit: limitPerMin, remaining: res.remainingPoints, resetMs: res.msBeforeNext };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) {
          return { allowed: false, limit: limitPerMin, remaining: 0, resetMs: rejection.msBeforeNext };
        }
        throw rejection;
      }
    },
  };
}

export function createMemoryRateLimiter(options: { keyPrefix: string }): RateLimiter {
  return createLimiterPool((points) => new RateLimiterMemory({ points, duration: 60, keyPrefix: `${options.keyPrefix}:${points}` }));
}

export function createRedisRateLimiter(options: { redis: Redis; keyPrefix: string }): RateLimiter {
  return createLimiterPool(
    (points) =>
      new RateLimiterRedis({
        storeClient: options.redis,
        points,
        duration: 60,
        keyPrefix: `${options.keyPrefix}:${points}`,
        // Shared by the limiter below while Redis is unreachable: the node keeps limiting on its own.
        insuranceLimiter: new RateLimiterMemory({ points, duration: 60, keyPrefix: `${options.keyPrefix}:ins:${points}` }),
      }),
  );
}
