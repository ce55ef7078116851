import type { Courier } from './types.js';

export const RUN_PLATE_PREFIX = 'RUN-';
export const RUN_COURIER_NAME = 'Sandbox Run Courier ';

/**
 * A sandbox run's own courier (test mode, plate `RUN-…`, named `Sandbox Run Courier n`;
 * sandbox-runs.ts): it lives only while its run plays and is never shown to operators (their
 * courier list and live fleet leave it out; runs of older versions left theirs in the store).
 */
export const isSandboxRunCourier = (courier: Pick<Courier, 'mode' | 'plate' | 'name'>): boolean =>
  courier.mode === 'test' && courier.plate.startsWith(RUN_PLATE_PREFIX) && courier.name.startsWith(RUN_COURIER_NAME);
