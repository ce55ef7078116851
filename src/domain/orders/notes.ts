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
} as const;
