import { ERROR_CODES } from './errors.js';

/**
 * The service's words, defined once and exported as data: order and stop statuses with their named
 * sets, webhook event names and (from errors.ts) the error codes. The stores build their partial
 * indexes and prune filters from the sets, GraphQL derives `cancellable`/`tippable` from them, and
 * `npm run web:build` writes them to web/shared/vocabulary.generated.ts for the web apps and the
 * tracking page. How to add a word: docs/development/vocabulary.md.
 */

export const ORDER_STATUSES = [
  'new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed', 'cancelled',
  // A failed delivery attempt and what the order's policy makes of it (issue #30).
  'delivery_failed', 'returning', 'returned', 'disposed',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/**
 * Named sets of order statuses, each in ORDER_STATUSES' order (the SQLite index filters are written
 * from them in this order). test/domain/vocabulary.test.ts holds them to the transition table.
 */
export const ORDER_STATUS_SETS = {
  /** Over: nothing more happens to the order (no move out in the transition table). */
  terminal: ['completed', 'cancelled', 'returned', 'disposed'],
  /** In progress: every status that is not terminal. */
  active: ['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'delivery_failed', 'returning'],
  /** Not yet picked up: the statuses from which `cancelled` can be reached. */
  cancellable: ['new', 'assigned', 'arrived_pickup'],
  /** On its way or delivered (a delivered order within 24 h); never cancelled or headed back, returned or disposed. */
  tippable: ['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed', 'delivery_failed'],
  /** A courier is on it before the drop-off ends: the live ETA follows these. */
  followed: ['assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff'],
  /** The moves a courier makes itself (the delivery and a failed attempt have their own commands). */
  courierMoves: ['arrived_pickup', 'picked_up', 'arrived_dropoff'],
  /** The parcel is with the courier, heading to the recipient. */
  onTheRoad: ['picked_up', 'arrived_dropoff'],
  /** Not yet delivered nor failed: a delivery PIN still matters. */
  undelivered: ['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff'],
  /** After a failed attempt, until the parcel is handed back to the shop or disposed of. */
  returnLeg: ['delivery_failed', 'returning'],
  /** What a failed attempt leads to, and where the status_changed payload names the attempt. */
  afterAttempt: ['delivery_failed', 'returning', 'disposed'],
} as const satisfies Record<string, readonly OrderStatus[]>;
export type OrderStatusSet = keyof typeof ORDER_STATUS_SETS;

/** The happy path in order: the steps a recipient sees on the tracking page. */
export const ORDER_STEPS = ['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed'] as const satisfies readonly OrderStatus[];

/** Whether `status` belongs to the named set. */
export function isStatusIn(set: OrderStatusSet, status: OrderStatus): boolean {
  return (ORDER_STATUS_SETS[set] as readonly OrderStatus[]).includes(status);
}

/** A drop-off of a multi-stop order (issue #30 item 1): pending → arrived → delivered | failed. */
export const STOP_STATUSES = ['pending', 'arrived', 'delivered', 'failed'] as const;
export type StopStatus = (typeof STOP_STATUSES)[number];

export const STOP_STATUS_SETS = {
  /** Still to be served. */
  open: ['pending', 'arrived'],
  /** Served: delivered, or given up on. */
  served: ['delivered', 'failed'],
} as const satisfies Record<string, readonly StopStatus[]>;

/** Whether a stop is still to be served. */
export function isStopOpen(status: StopStatus): boolean {
  return (STOP_STATUS_SETS.open as readonly StopStatus[]).includes(status);
}

export const WEBHOOK_EVENT_TYPES = ['order.status_changed', 'order.courier_location', 'batch.created', 'order.eta_changed', 'order.tip_added', 'order.stop_status_changed'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** An event type's GraphQL enum value: `order.status_changed` → `ORDER_STATUS_CHANGED`. */
export function webhookEventEnumValue(type: WebhookEventType): string {
  return type.replace('.', '_').toUpperCase();
}

/** One event for one endpoint: waiting (or retrying), delivered, or given up on. */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

export { ERROR_CODES };

/** Everything the web apps get, as the generator writes it (web/scripts/vocabulary.ts). */
export const WEB_VOCABULARY = {
  ORDER_STATUSES,
  ORDER_STATUS_SETS,
  ORDER_STEPS,
  STOP_STATUSES,
  STOP_STATUS_SETS,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_EVENTS: WEBHOOK_EVENT_TYPES.map(webhookEventEnumValue),
  WEBHOOK_DELIVERY_STATUSES,
  ERROR_CODES,
};
