/**
 * `REQUIRE_FAULT_SUITE=1` (exported by .ci/run): the Redis, MongoDB and distributed fault suites
 * must run. Where they would otherwise skip — no redis-server on PATH, no jongodb binary, a jongodb
 * that does not start — the run fails with the reason instead, so CI cannot pass without them.
 * Local runs (the variable unset) stay lenient: the suites skip with a printed reason.
 */
export const FAULT_SUITE_REQUIRED = process.env.REQUIRE_FAULT_SUITE === '1';

/** Returns `reason` (printed) for the caller to skip with, or throws when the fault suite is required. */
export function skipOrFail(reason: string): string {
  if (FAULT_SUITE_REQUIRED) {
    throw new Error(`${reason} — REQUIRE_FAULT_SUITE=1 (set by .ci/run) turns this skip into a failure: install redis-server and run npm ci (jongodb), or unset REQUIRE_FAULT_SUITE to skip locally`);
  }
  console.warn(reason);
  return reason;
}
