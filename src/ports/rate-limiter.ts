export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the current window resets. */
  resetMs: number;
}

export interface RateLimitOptions {
  key: string;
  /** Units allowed per window; the name predates other windows: with `windowSeconds` it is per that window. */
  limitPerMin: number;
  /** Window length; 60 s unless given. */
  windowSeconds?: number;
}

/** Fixed windows (one minute unless asked); the limit may differ per key (per-merchant overrides). */
export interface RateLimiter {
  consume(options: RateLimitOptions): Promise<RateLimitDecision>;
  /** The bucket's state without taking from it (`allowed` is false once it is spent). */
  peek(options: RateLimitOptions): Promise<RateLimitDecision>;
  /**
   * Gives back one unit taken by `consume` (atomically, across nodes): with it a unit can be a
   * reservation — taken before work whose outcome decides whether it counts, returned if it does not.
   */
  reward(options: RateLimitOptions): Promise<void>;
}
