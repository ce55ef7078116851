import type { LatLng, Mode, OrderStatus } from '../domain/types.js';

/** An order moved to a new status (also published for creation, with from = null). */
export interface OrderStatusMessage {
  type: 'order.status_changed';
  orderId: string;
  merchantId: string;
  mode: Mode;
  trackingNumber: string;
  orderNumber: string;
  from: OrderStatus | null;
  status: OrderStatus;
  sequence: number;
  courierId: string | null;
  at: string;
}

/** A courier reported a position; orderIds are the orders it is carrying or heading to. */
export interface CourierPositionMessage {
  type: 'courier.position';
  courierId: string;
  mode: Mode;
  location: LatLng;
  orderIds: string[];
  /** Each order's delivery estimate after the report (the live ETA), by order id. */
  estimates?: Record<string, string>;
  at: string;
  /** The report wrote webhook deliveries (opt-in location webhooks): the webhook workers have work. */
  wroteWebhooks?: boolean;
}

export interface BatchCreatedMessage {
  type: 'batch.created';
  batchId: string;
  merchantId: string;
  mode: Mode;
  orderIds: string[];
  at: string;
}

/** A merchant or its API keys changed (revocation, rotation, status, settings): every node drops its cached credentials. */
export interface CredentialsChangedMessage {
  type: 'credentials.changed';
  merchantId: string;
  at: string;
}

/**
 * A courier's record (duty status, job, account, token) or an order of its job (courier, estimate,
 * batch) was written: nodes holding a snapshot of that courier or order read it again.
 */
export interface CourierChangedMessage {
  type: 'courier.changed';
  courierId: string | null;
  orderIds: string[];
  at: string;
}

export type BusMessage = OrderStatusMessage | CourierPositionMessage | BatchCreatedMessage | CredentialsChangedMessage | CourierChangedMessage;

/**
 * Every state change and courier position is published here once, by the domain; subscribers
 * (GraphQL subscriptions, tracking sockets, the webhook worker) consume it. Delivery is
 * fire-and-forget: state changes are also persisted, positions are not.
 */
export interface EventBus {
  publish(message: BusMessage): Promise<void>;
  /** Returns the unsubscribe function. */
  subscribe(handler: (message: BusMessage) => void): () => void;
  /**
   * The node was cut off from the other nodes and is back: messages may have been missed, so
   * whoever holds state derived from them reads it again. Returns the unsubscribe function.
   */
  onResync(handler: () => void): () => void;
  /**
   * Whether messages published by the other nodes reach this node now (one process: always): false
   * while cut off, when state derived from messages must be read from the store instead. Another
   * node's own send may still fail (its Redis link): such state needs a bound on its age too.
   */
  connected(): boolean;
  close(): Promise<void>;
}
