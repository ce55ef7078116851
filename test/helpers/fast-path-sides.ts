import { afterAll, beforeAll, vi } from 'vitest';
import type { IdSource } from '../../src/ports/ids.js';

/** Ids that two stores give out alike when asked in the same order. */
export function sequentialIds(): IdSource {
  let n = 0;
  return {
    next: (prefix) => `${prefix}_${String(++n).padStart(6, '0')}`,
    orderNumber: () => String(1_000_000_000 + ++n),
    trackingNumber: () => `EXD-${String(++n).padStart(12, '0')}`,
  };
}

/**
 * For a fast path's equivalence suite: starts one side with the fast path and one without (each on
 * its own store, with sequentialIds) under a frozen clock, since timestamps, quote expiry and
 * rate-limit resets read it; stops both after the suite.
 */
export function fastAndPlainSides<S extends { stop(): Promise<void> }>(start: (fastPath: boolean) => Promise<S>): { fast: () => S; plain: () => S } {
  let sides: [S, S] | undefined;
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-26T10:00:00Z') });
    sides = await Promise.all([start(true), start(false)]);
  });
  afterAll(async () => {
    await Promise.all((sides ?? []).map((side) => side.stop()));
    vi.useRealTimers();
  });
  return { fast: () => sides![0], plain: () => sides![1] };
}
