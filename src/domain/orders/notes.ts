import { FAILED_ATTEMPT_REASONS, type FailedAttemptReason } from '../types.js';

/**
 * The notes the service itself writes on an order's history (OrderEvent.reason). One list so the
 * console can translate each one (web/shared/catalog.ts; a test fails when one lacks a translation).
 */
export const ORDER_NOTES = {
  consolidated: 'consolidated into a batch',
  courierDisabled: 'courier disabled by an administrator',
  sandboxCancelled: 'sandbox run: cancelled after assignment',
  sandboxDroppedOut: 'sandbox run: the courier dropped out',
  operatorReleased: 'released by an operator',
  operatorReassigned: 'reassigned by an operator',
  courierReleased: 'courier dropped out',
  geofenceBypassed: 'geofence bypassed',
  geofenceUnverified: 'geofence unverified: the drop-off is known only to its comuna (locality precision)',
} as const;

export type OrderNoteCode = keyof typeof ORDER_NOTES | FailedAttemptReason;

/**
 * A history note's code (issue #38 item 5): the ORDER_NOTES key of a note the service wrote, or the
 * failed-attempt reason a courier chose; null for a person's own words (a cancel reason). The apps
 * word the code from their catalog in the reader's language; `reason` keeps the English text.
 */
export function noteCodeOf(reason: string | null): OrderNoteCode | null {
  if (reason === null) return null;
  if ((FAILED_ATTEMPT_REASONS as readonly string[]).includes(reason)) return reason as FailedAttemptReason;
  const entry = Object.entries(ORDER_NOTES).find(([, text]) => text === reason);
  return entry ? (entry[0] as keyof typeof ORDER_NOTES) : null;
}
