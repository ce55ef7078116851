export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the current window resets. */
  resetMs: number;
}

/** Fixed one-minute windows; the limit may differ per key (per-merchant overrides). */
export interface RateLimiter {
  consume(options: { key: string; limitPerMin: number }): Promise<RateLimitDecision>;
}
