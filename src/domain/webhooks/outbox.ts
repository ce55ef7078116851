import type { Clock } from '../../ports/clock.js';
import type { IdSource } from '../../ports/ids.js';
import type { NewFeedEvent, Store } from '../../ports/store.js';
import type { Batch, Courier, LatLng, Order, OrderEvent, WebhookDelivery, WebhookEndpoint, WebhookEventType } from '../types.js';
import { trackingUrlOf } from '../orders/identifiers.js';
import type { TrackingLinks } from '../tracking-links.js';
import { batchCreatedPayload, changedStops, etaChangePayload, eventShape, flatShape, stopEventPayload, type EtaChange } from './payloads.js';

/** Courier-location webhooks are at most this frequent per order. */
export const COURIER_LOCATION_INTERVAL_MS = 20_000;
/** The store lease that holds an order's courier-location slot across nodes. */
export const courierLocationLease = (orderId: string) => `courier-location:${orderId}`;

export type WebhookOutbox = ReturnType<typeof createWebhookOutbox>;

type Subscribed = WebhookEndpoint & { backlogFull: boolean };

/**
 * Builds the webhook deliveries of an event, one per subscribed endpoint, with the exact body that
 * every attempt will send. Order transitions hand the builder to the store, which runs it inside
 * the transaction of the change (transactional outbox).
 */
export function createWebhookOutbox(deps: {
  store: Store;
  clock: Clock;
  ids: IdSource;
  publicBaseUrl: () => string;
  /** The customer's capability link of an order (issue #28); without it, the plain link. */
  trackingLinks?: Pick<TrackingLinks, 'urlOf'>;
  backlogMax?: number;
  /** When deliveries are due (default: the event's time). A sandbox run's events are on a virtual clock, their deliveries held until the run ends. */
  dueAt?: () => string;
  /** Signed links to hosted proofs in payloads (issue #27), valid as long as deliveries are retried. */
  proofUrl?: (proofId: string) => string;
}) {
  const { store, clock, ids } = deps;
  const lastLocationAt = new Map<string, number>();
  const linkOf = (order: Order) => (deps.trackingLinks ? deps.trackingLinks.urlOf(order) : trackingUrlOf(order, deps.publicBaseUrl()));

  const { backlogMax } = deps;

  /** An endpoint at its backlog bound gets the delivery written as failed, with the reason: visible in the log, redeliverable. */
  function delivery(endpoint: Subscribed, eventType: WebhookEventType, body: unknown, order: Order | null, sequence: number | null, at: string): WebhookDelivery {
    const full = endpoint.backlogFull;
    return {
      id: ids.next('msg'), endpointId: endpoint.id, merchantId: endpoint.merchantId, mode: endpoint.mode, eventType,
      orderId: order?.id ?? null, sequence, body: JSON.stringify(body), status: full ? 'failed' : 'pending', attempts: 0, nextAttemptAt: deps.dueAt?.() ?? at,
      leaseOwner: null, leaseUntil: null, lastStatusCode: null, lastError: full ? `backlog full: ${backlogMax} deliveries pending for this endpoint` : null,
      lastLatencyMs: null, createdAt: at, deliveredAt: null,
    };
  }

  function orderBody(endpoint: WebhookEndpoint, eventType: WebhookEventType, order: Order, courier: Courier | null, sequence: number, at: string, location?: LatLng, tipAdded?: number) {
    const base = deps.publicBaseUrl();
    const context = {
      order, courier, sequence, at, location, tipAdded,
      trackingUrl: linkOf(order),
      courierImageUrl: `${base}/track/assets/courier.svg`,
      ...(deps.proofUrl && { proofUrl: deps.proofUrl }),
    };
    return endpoint.payloadShape === 'flat' ? flatShape(context) : eventShape(eventType, context);
  }

  /** The enabled endpoints subscribed to the event, each with whether its backlog is at the bound now. */
  async function endpointsFor(merchantId: string, mode: Order['mode'], eventType: WebhookEventType): Promise<Subscribed[]> {
    const endpoints = (await store.webhooks.listEndpoints({ merchantId, mode, enabledOnly: true })).filter((e) => e.events.includes(eventType));
    const full = async (e: WebhookEndpoint) => backlogMax !== undefined && (await store.webhooks.countPending({ endpointId: e.id, limit: backlogMax })) >= backlogMax;
    return Promise.all(endpoints.map(async (e) => Object.assign({}, e, { backlogFull: await full(e) })));
  }

  /**
   * Prepares the outbox of an order's next transition: the endpoints and courier are read now,
   * the deliveries are built from the updated order inside the store's transaction.
   */
  async function prepareTransition(order: Order, courierId: string | null): Promise<((updated: Order, event: OrderEvent) => WebhookDelivery[]) | undefined> {
    const [endpoints, stopEndpoints] = await Promise.all([
      endpointsFor(order.merchantId, order.mode, 'order.status_changed'),
      order.stops ? endpointsFor(order.merchantId, order.mode, 'order.stop_status_changed') : [],
    ]);
    if (endpoints.length === 0 && stopEndpoints.length === 0) return undefined;
    const courier = courierId ? await store.couriers.findById(courierId) : null;
    return (updated, event) => [
      ...endpoints.map((e) => delivery(e, 'order.status_changed', orderBody(e, 'order.status_changed', updated, courier, event.sequence, event.at), updated, event.sequence, event.at)),
      // A multi-stop order's stop moves come with the order's own: one delivery per stop that moved.
      ...changedStops(order, updated).flatMap((stop) =>
        stopEndpoints.map((e) => {
          const body = Object.assign(orderBody(e, 'order.stop_status_changed', updated, courier, event.sequence, event.at), stopEventPayload(updated, stop, deps.proofUrl));
          return delivery(e, 'order.stop_status_changed', body, updated, event.sequence, event.at);
        }),
      ),
    ];
  }

  async function batchCreated(batch: Batch): Promise<WebhookDelivery[]> {
    const at = clock.now().toISOString();
    const endpoints = await endpointsFor(batch.merchantId, batch.mode, 'batch.created');
    return endpoints.map((e) => delivery(e, 'batch.created', batchCreatedPayload(batch, at), null, null, at));
  }

  /** An order's status change in the merchant's event feed: the `event` shape, whatever the endpoints' shapes. */
  function feedEventOf(order: Order, courier: Courier | null, event: OrderEvent): NewFeedEvent {
    const context = { order, courier, sequence: event.sequence, at: event.at, trackingUrl: linkOf(order), courierImageUrl: '', ...(deps.proofUrl && { proofUrl: deps.proofUrl }) };
    return {
      id: event.id, merchantId: order.merchantId, mode: order.mode, type: 'order.status_changed', orderId: order.id,
      sequence: event.sequence, body: JSON.stringify(eventShape('order.status_changed', context)), at: event.at,
    };
  }

  /**
   * Everything an order's next change writes besides itself (issue #17 item 6): the webhook
   * deliveries when an endpoint is subscribed, and always the event of the merchant's feed. Both
   * are built from the updated order inside the store's transaction.
   */
  async function prepareChange(order: Order, courierId: string | null) {
    const [deliveries, courier] = await Promise.all([prepareTransition(order, courierId), courierId ? store.couriers.findById(courierId) : null]);
    const feed = (updated: Order, event: OrderEvent): NewFeedEvent[] => [feedEventOf(updated, courier, event), ...changedStops(order, updated).map((stop) => stopFeedEventOf(updated, stop, courier, event))];
    return Object.assign({ feed }, deliveries && { outbox: deliveries });
  }

  /** A stop's move in the merchant's feed: after its order's status event, with the same sequence. */
  function stopFeedEventOf(order: Order, stop: NonNullable<Order['stops']>[number], courier: Courier | null, event: OrderEvent): NewFeedEvent {
    const context = { order, courier, sequence: event.sequence, at: event.at, trackingUrl: linkOf(order), courierImageUrl: '', ...(deps.proofUrl && { proofUrl: deps.proofUrl }) };
    const body = Object.assign(eventShape('order.stop_status_changed', context), stopEventPayload(order, stop, deps.proofUrl));
    return { id: ids.next('evt'), merchantId: order.merchantId, mode: order.mode, type: 'order.stop_status_changed', orderId: order.id, sequence: event.sequence, body: JSON.stringify(body), at: event.at };
  }

  /** A new batch's deliveries and its feed event, with one time. */
  async function batchCreatedWrite(batch: Batch): Promise<{ deliveries: WebhookDelivery[]; feed: NewFeedEvent }> {
    const at = clock.now().toISOString();
    const endpoints = await endpointsFor(batch.merchantId, batch.mode, 'batch.created');
    const body = batchCreatedPayload(batch, at);
    return {
      deliveries: endpoints.map((e) => delivery(e, 'batch.created', body, null, null, at)),
      feed: { id: ids.next('evt'), merchantId: batch.merchantId, mode: batch.mode, type: 'batch.created', orderId: null, sequence: null, body: JSON.stringify(body), at },
    };
  }

  /**
   * Opt-in courier positions: at most one per order every 20 s across all nodes. The node's own
   * map skips an order it sent within the interval without asking the store; otherwise the slot is
   * taken in the store (`courier-location:<order>`, timed by the reports), so only one node per
   * interval gets it. The endpoints of an order are looked up
   * at most that often per node too (a merchant's new location endpoint waits up to 20 s). Not
   * transactional: positions are not persisted either. Returns the deliveries written.
   */
  async function courierLocation(options: { orders: Order[]; courier: Courier; location: LatLng; at: string }): Promise<number> {
    const now = Date.parse(options.at);
    const deliveries: WebhookDelivery[] = [];
    for (const order of options.orders) {
      if ((lastLocationAt.get(order.id) ?? 0) + COURIER_LOCATION_INTERVAL_MS > now) continue;
      lastLocationAt.set(order.id, now);
      const endpoints = await endpointsFor(order.merchantId, order.mode, 'order.courier_location');
      if (endpoints.length === 0) continue;
      if (!(await store.leases.takeSlot({ name: courierLocationLease(order.id), at: options.at, intervalMs: COURIER_LOCATION_INTERVAL_MS }))) continue;
      for (const e of endpoints) {
        deliveries.push(delivery(e, 'order.courier_location', orderBody(e, 'order.courier_location', order, options.courier, order.sequence, options.at, options.location), order, order.sequence, options.at));
      }
    }
    if (lastLocationAt.size > 50_000) lastLocationAt.clear();
    if (deliveries.length > 0) await store.webhooks.insertDeliveries(deliveries);
    return deliveries.length;
  }

  /**
   * Prepares an order.eta_changed (the live ETA moved): the endpoints are read now, the deliveries
   * are built from the updated order inside the store's write (`orders.updateEstimate`). Undefined
   * when no endpoint is subscribed. Not an event of the merchant's feed (an estimate is not a change of record).
   */
  async function prepareEtaChange(options: { order: Order; courier: Courier; change: EtaChange; at: string }): Promise<((updated: Order) => WebhookDelivery[]) | undefined> {
    const { order, courier, change, at } = options;
    const endpoints = await endpointsFor(order.merchantId, order.mode, 'order.eta_changed');
    if (endpoints.length === 0) return undefined;
    const eta = etaChangePayload(change);
    return (updated) =>
      endpoints.map((e) => delivery(e, 'order.eta_changed', Object.assign(orderBody(e, 'order.eta_changed', updated, courier, updated.sequence, at), { eta }), updated, updated.sequence, at));
  }

  /**
   * Prepares an order.tip_added (issue #30 item 4): a change of record but not a transition, so it
   * carries the order's current sequence (as order.eta_changed) and is an event of the merchant's
   * feed. The deliveries and the feed event are built from the updated order inside the store's write.
   */
  async function prepareTipAdded(options: { order: Order; amount: number; at: string }) {
    const { order, amount, at } = options;
    const [endpoints, courier] = await Promise.all([
      endpointsFor(order.merchantId, order.mode, 'order.tip_added'),
      order.courierId ? store.couriers.findById(order.courierId) : null,
    ]);
    const feed = (updated: Order): NewFeedEvent => {
      const context = { order: updated, courier, sequence: updated.sequence, at, trackingUrl: linkOf(updated), courierImageUrl: '', tipAdded: amount, ...(deps.proofUrl && { proofUrl: deps.proofUrl }) };
      return {
        id: ids.next('evt'), merchantId: updated.merchantId, mode: updated.mode, type: 'order.tip_added', orderId: updated.id,
        sequence: updated.sequence, body: JSON.stringify(eventShape('order.tip_added', context)), at,
      };
    };
    const outbox = endpoints.length === 0
      ? undefined
      : (updated: Order) => endpoints.map((e) => delivery(e, 'order.tip_added', orderBody(e, 'order.tip_added', updated, courier, updated.sequence, at, undefined, amount), updated, updated.sequence, at));
    return Object.assign({ feed }, outbox && { outbox });
  }

  return { prepareTipAdded, prepareTransition, prepareChange, batchCreated, batchCreatedWrite, courierLocation, prepareEtaChange };
}
