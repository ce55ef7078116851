import type { Merchant, Mode } from './types.js';

/**
 * How many times faster than real time an order's journey runs: the sandbox simulator drives test
 * orders at the merchant's `sandbox_speed` (else the operator default) and skips the preparation
 * wait; live orders run at 1. Estimates of test orders are divided by it so they match the drive.
 */
export function timeScaleOf(options: { mode: Mode; merchant: Merchant | null; defaultSpeed: number }): number {
  return options.mode === 'test' ? (options.merchant?.settings.sandboxSpeed ?? options.defaultSpeed) : 1;
}
