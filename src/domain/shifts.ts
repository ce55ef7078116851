import type { CourierGeoIndex } from '../ports/geo-index.js';
import type { Store } from '../ports/store.js';
import { AppError } from './errors.js';
import type { Courier } from './types.js';

/** The latest planned end a courier (or an operator) may give a duty: this long from now. */
export const MAX_SHIFT_HOURS = 16;

/**
 * A planned end as given (`shift_ends_at` / `shiftEndsAt`): in the future and at most
 * MAX_SHIFT_HOURS ahead; returned as the canonical ISO instant. null stays null (no planned end).
 */
export function checkShiftEnd(options: { shiftEndsAt: string | null; now: Date; field?: string }): string | null {
  const { shiftEndsAt, now } = options;
  if (shiftEndsAt === null) return null;
  const endMs = Date.parse(shiftEndsAt);
  const nowMs = now.getTime();
  if (!(endMs > nowMs && endMs <= nowMs + MAX_SHIFT_HOURS * 3_600_000)) {
    const field = options.field ?? 'shift_ends_at';
    throw new AppError('VALIDATION_ERROR', `${field} must be in the future and at most ${MAX_SHIFT_HOURS} hours ahead`, { fields: [{ field, message: 'out of range' }] });
  }
  return new Date(endMs).toISOString();
}

/** Whether the courier may be given new work at all: an active account (never a disabled one). */
export function isAccountActive(courier: Courier): boolean {
  return courier.accountStatus === 'active';
}

/** Whether a pickup at `pickupAtMs` falls after the courier's planned end (never, without one). */
export function pickupAfterShiftEnd(courier: Courier, pickupAtMs: number): boolean {
  return courier.shiftEndsAt !== null && pickupAtMs > Date.parse(courier.shiftEndsAt);
}

/** Whether the courier's planned end has passed. */
export function isShiftOver(courier: Courier, now: Date): boolean {
  return courier.shiftEndsAt !== null && Date.parse(courier.shiftEndsAt) <= now.getTime();
}

/**
 * An available courier whose planned end has passed goes off duty (its planned end cleared) and
 * leaves the geo index; the courier as it now stands, or null when it was not available any more
 * (claimed meanwhile: it finishes that job first). A busy courier is never touched here.
 */
export async function endShift(deps: { store: Store; geoIndex: CourierGeoIndex }, courier: Courier, at: string): Promise<Courier | null> {
  const off = await deps.store.couriers.setStatus({ id: courier.id, status: 'off_duty', from: ['available'], shiftEndsAt: null, updatedAt: at });
  if (off) await deps.geoIndex.remove({ courierId: courier.id, mode: courier.mode, vehicle: courier.vehicle });
  return off;
}
