import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimitDecision, RateLimitOptions, RateLimiter } from '../ports/rate-limiter.js';

/**
 * Both adapters use rate-limiter-flexible; one limiter per distinct limit and window, since a
 * limiter's points and duration are fixed. The Redis one falls back to an in-memory limiter (per
 * node) while Redis is unreachable, so the API keeps answering with degraded, per-node limits.
 */
function createLimiterPool(make: (points: number, seconds: number) => RateLimiterAbstract): RateLimiter {
  const limiters = new Map<string, RateLimiterAbstract>();
  const limiterFor = (points: number, seconds: number) => {
    const id = seconds === 60 ? String(points) : `${points}/${seconds}`;
    let limiter = limiters.get(id);
    if (!limiter) limiters.set(id, (limiter = make(points, seconds)));
    return limiter;
  };
  return {
    async consume({ key, limitPerMin, windowSeconds = 60 }: RateLimitOptions): Promise<RateLimitDecision> {
      try {
        const res = await limiterFor(limitPerMin, windowSeconds).consume(key, 1);
        return { allowed: true, limit: limitPerMin, remaining: res.remainingPoints, resetMs: res.msBeforeNext };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) {
          return { allowed: false, limit: limitPerMin, remaining: 0, resetMs: rejection.msBeforeNext };
        }
        throw rejection;
      }
    },
    async peek({ key, limitPerMin, windowSeconds = 60 }: RateLimitOptions): Promise<RateLimitDecision> {
      const res = await limiterFor(limitPerMin, windowSeconds).get(key);
      const consumed = res?.consumedPoints ?? 0;
      return { allowed: consumed < limitPerMin, limit: limitPerMin, remaining: Math.max(0, limitPerMin - consumed), resetMs: res?.msBeforeNext ?? 0 };
    },
    async reward({ key, limitPerMin, windowSeconds = 60 }: RateLimitOptions): Promise<void> {
      await limiterFor(limitPerMin, windowSeconds).reward(key, 1);
    },
  };
}

export function createMemoryRateLimiter(options: { keyPrefix: string }): RateLimiter {
  return createLimiterPool(
    (points, seconds) => new RateLimiterMemory({ points, duration: seconds, keyPrefix: `${options.keyPrefix}:${points}:${seconds}` }),
  );
}

export function createRedisRateLimiter(options: { redis: Redis; keyPrefix: string }): RateLimiter {
  return createLimiterPool(
    (points, seconds) =>
      new RateLimiterRedis({
        storeClient: options.redis,
        points,
        duration: seconds,
        keyPrefix: `${options.keyPrefix}:${points}:${seconds}`,
        // Shared by the limiter below while Redis is unreachable: the node keeps limiting on its own.
        insuranceLimiter: new RateLimiterMemory({ points, duration: seconds, keyPrefix: `${options.keyPrefix}:ins:${points}:${seconds}` }),
      }),
  );
}
