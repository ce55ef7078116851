import type { Geocoder } from '../ports/geocoder.js';
import type { Store } from '../ports/store.js';
import { AppError } from './errors.js';
import { isHeadingToRecipient, isOrderActive } from './orders/state-machine.js';
import type { LatLng, Order, OrderStatus, StopStatus, VehicleType } from './types.js';
import { isStopOpen } from './vocabulary.js';
import type { WatchFanOut } from './watch/fan-out.js';
import { watchIterator } from './watch/iterator.js';
import { createTrackingChannels, type TrackingChange, type TrackingUpdate } from './watch/tracking.js';

export type { TrackingChange, TrackingUpdate } from './watch/tracking.js';

/** Tracking numbers (EXD-XXXX-XXXX-XXXX) and order numbers (10 digits); anything else is unknown without a lookup. */
const REFERENCE_PATTERN = /^(EXD-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}|\d{10})$/;

/** Public drop-off positions are rounded to ~110 m: enough for a map, not a doorstep. */
const roundCoarse = (p: LatLng): LatLng => ({ lat: Math.round(p.lat * 1000) / 1000, lng: Math.round(p.lng * 1000) / 1000 });

export interface TrackingView {
  reference: string;
  trackingNumber: string;
  status: OrderStatus;
  isTest: boolean;
  estimatedPickupAt: string;
  estimatedDeliveryAt: string;
  pickup: LatLng & { label: string };
  dropoff: LatLng & { label: string };
  /**
   * `phone` is the number the customer may call about the delivery (issue #38): the configured call
   * relay, or '' — never the courier's own number.
   */
  driver: { name: string; phone: string; vehicleType: VehicleType; vehiclePlate: string; location: LatLng | null } | null;
  timeline: Array<{ status: OrderStatus; at: string }>;
}

/**
 * One stop of a multi-stop order, for that stop's recipient (issue #30): its status, ETA and coarse
 * point, and the courier's progress toward it (stops still ahead of it, the position while it is
 * open) — never another stop's address, contact or position, nor the order's tracking number.
 */
export interface StopTrackingView {
  stopId: string;
  status: StopStatus;
  orderStatus: OrderStatus;
  isTest: boolean;
  eta: string;
  dropoff: LatLng & { label: string };
  /** Stops the courier serves before this one that are still open (0: this stop is next, or done). */
  stopsAhead: number;
  driver: { name: string; vehicleType: VehicleType; vehiclePlate: string; location: LatLng | null } | null;
}

/** What the customer's page shows beyond the public view: who the parcel is from and what it holds. */
export interface TrackingPageView {
  view: TrackingView;
  /** The merchant's name: the shop the customer bought from. */
  shopName: string;
  /** A short summary of the items (names and quantities, the first few), or null when the merchant hides them or there are none. */
  items: { lines: Array<{ name: string | null; quantity: number }>; more: number; total: number } | null;
}

/** Items named on the page at most; the rest are counted. */
const ITEM_LINES = 3;

export type TrackingService = ReturnType<typeof createTrackingService>;

/** The drop-off's public label when no comuna can be named. */
export const NEUTRAL_DROPOFF_LABEL = 'Destination';

/**
 * The public view of an order, for the customer: status, timeline, ETA, the courier (name, vehicle,
 * position, and the call relay's number as its phone) — never the courier's own phone (issue #38),
 * nor the customer's name, phone, RUT, address text or notes. The drop-off
 * is a coarse point labelled with its comuna (whatever the geocoder stored as label). The same view
 * feeds REST, the live socket's snapshots and the page; `watch`/`follow` stream its changes.
 */
export function createTrackingService(deps: {
  store: Store;
  geocoder: Pick<Geocoder, 'localityOf'>;
  fanOut: WatchFanOut;
  /** The call relay's number (CALL_RELAY_NUMBER): the only number public tracking gives; null gives ''. */
  callRelayNumber?: string | null;
  onSnapshotError?: (error: Error, orderId: string) => void;
}) {
  const { store, geocoder } = deps;
  const callNumber = deps.callRelayNumber ?? '';

  async function findTrackedOrder(reference: string): Promise<Order> {
    const ref = reference.trim().toUpperCase();
    const order = REFERENCE_PATTERN.test(ref) ? await store.orders.findByTrackingRef(ref) : null;
    if (!order) throw new AppError('ORDER_NOT_FOUND', 'No delivery with that tracking reference');
    return order;
  }

  async function getTracking(options: { reference: string }): Promise<TrackingView> {
    return viewOf(await findTrackedOrder(options.reference), options.reference.trim());
  }

  /** The page's view (issue #28): the public view, the shop's name and, unless the merchant's setting hides them, the items. */
  async function getTrackingPage(options: { reference: string }): Promise<TrackingPageView> {
    const order = await findTrackedOrder(options.reference);
    const [view, merchant] = await Promise.all([viewOf(order, options.reference.trim()), store.merchants.findById(order.merchantId)]);
    const showItems = merchant?.settings.trackingShowItems !== false;
    return { view, shopName: merchant?.name ?? '', items: showItems ? summaryOf(order.items) : null };
  }

  async function viewOf(order: Order, reference: string): Promise<TrackingView> {
    const [courier, events] = await Promise.all([
      order.courierId ? store.couriers.findById(order.courierId) : null,
      store.orders.listEvents(order.id),
    ]);
    const active = isHeadingToRecipient(order);
    const comuna = geocoder.localityOf({ point: order.dropoff, matched: order.dropoff.label });
    return {
      reference,
      trackingNumber: order.trackingNumber,
      status: order.status,
      isTest: order.mode === 'test',
      estimatedPickupAt: order.estimatedPickupAt,
      estimatedDeliveryAt: order.estimatedDeliveryAt,
      pickup: { lat: order.pickup.lat, lng: order.pickup.lng, label: order.pickup.label },
      dropoff: Object.assign(roundCoarse(order.dropoff), { label: comuna ?? NEUTRAL_DROPOFF_LABEL }),
      driver: courier
        ? {
            name: courier.name,
            // Never the courier's personal number: the relay's, or nothing (issue #38).
            phone: callNumber,
            vehicleType: courier.vehicle,
            vehiclePlate: courier.plate,
            // The position is shared only while the delivery is under way.
            location: active ? courier.location : null,
          }
        : null,
      timeline: events.map((e) => ({ status: e.to, at: e.at })),
    };
  }

  /** The view of one stop; the caller has checked the stop link's capability. Unknown ids are ORDER_NOT_FOUND. */
  async function getStopTracking(options: { orderId: string; stopId: string }): Promise<StopTrackingView> {
    const order = options.orderId.length <= 64 ? await store.orders.findById(options.orderId) : null;
    const stop = order?.stops?.find((s) => s.id === options.stopId);
    if (!order || !stop) throw new AppError('ORDER_NOT_FOUND', 'No delivery with that tracking reference');
    const courier = order.courierId ? await store.couriers.findById(order.courierId) : null;
    const open = (s: { status: StopStatus }) => isStopOpen(s.status);
    const comuna = geocoder.localityOf({ point: stop.location, matched: stop.location.label });
    return {
      stopId: stop.id, status: stop.status, orderStatus: order.status, isTest: order.mode === 'test', eta: stop.eta,
      dropoff: Object.assign(roundCoarse(stop.location), { label: comuna ?? NEUTRAL_DROPOFF_LABEL }),
      stopsAhead: open(stop) ? order.stops!.filter((s) => s.index < stop.index && open(s)).length : 0,
      // The position only while the courier is still on the way to this stop.
      driver: courier ? { name: courier.name, vehicleType: courier.vehicle, vehiclePlate: courier.plate, location: isOrderActive(order) && open(stop) ? courier.location : null } : null,
    };
  }

  const channels = createTrackingChannels({
    fanOut: deps.fanOut,
    readView: async (orderId) => {
      const order = await store.orders.findById(orderId);
      if (!order) throw new AppError('ORDER_NOT_FOUND', 'No delivery with that tracking reference');
      return viewOf(order, '');
    },
    ...(deps.onSnapshotError && { onSnapshotError: deps.onSnapshotError }),
  });

  /** Live changes of one public order (status and courier positions), for subscriptions: bounded, return() stops. */
  async function watch(options: { reference: string }): Promise<AsyncIterableIterator<TrackingChange>> {
    const order = await findTrackedOrder(options.reference);
    const reference = options.reference.trim();
    // A moved estimate reaches subscribers on the position update that moved it (which carries it): no separate event.
    return watchIterator<TrackingChange>((push) =>
      channels.attach({
        order, reference, snapshots: false,
        onUpdate: (update) => {
          if (update.type === 'status' || update.type === 'position') push(update);
        },
      }),
    );
  }

  /**
   * Push form of watch for transports that write at once and bound their own buffers (the live
   * socket): a snapshot first — nothing before it — then changes, and a fresh snapshot after every
   * status change. `order` is the one findTrackedOrder found for `reference`. Returns the stop.
   */
  function follow(options: { order: Order; reference: string; onUpdate: (update: TrackingUpdate) => void; onFailure?: (error: Error) => void }): () => void {
    return channels.attach(Object.assign({}, options, { reference: options.reference.trim(), snapshots: true }));
  }

  /** Orders watched on this node. */
  const watchedOrders = () => channels.size();

  return { getTracking, getStopTracking, getTrackingPage, findTrackedOrder, watch, follow, watchedOrders };
}

/** The first items by name (a name-less item is counted by quantity only), and how many units there are in all. */
function summaryOf(items: Order['items']): TrackingPageView['items'] {
  const parsed = items.map((item) => ({
    name: typeof item.name === 'string' && item.name.trim() ? item.name.trim().slice(0, 60) : null,
    quantity: typeof item.quantity === 'number' && Number.isInteger(item.quantity) && item.quantity > 0 ? item.quantity : 1,
  }));
  if (parsed.length === 0) return null;
  const total = parsed.reduce((sum, item) => sum + item.quantity, 0);
  return { lines: parsed.slice(0, ITEM_LINES), more: Math.max(0, parsed.length - ITEM_LINES), total };
}
