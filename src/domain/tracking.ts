import type { Store } from '../ports/store.js';
import { AppError } from './errors.js';
import type { LatLng, Order, OrderStatus, VehicleType } from './types.js';

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
  driver: { name: string; phone: string; vehicleType: VehicleType; vehiclePlate: string; location: LatLng | null } | null;
  timeline: Array<{ status: OrderStatus; at: string }>;
}

export type TrackingService = ReturnType<typeof createTrackingService>;

/**
 * The public view of an order, for the customer: status, timeline, ETA, the courier (name, phone,
 * vehicle, position) — never the customer's name, phone, RUT, address text or notes.
 */
export function createTrackingService(deps: { store: Store }) {
  const { store } = deps;

  async function findTrackedOrder(reference: string): Promise<Order> {
    const ref = reference.trim().toUpperCase();
    const order = REFERENCE_PATTERN.test(ref) ? await store.orders.findByTrackingRef(ref) : null;
    if (!order) throw new AppError('ORDER_NOT_FOUND', 'No delivery with that tracking reference');
    return order;
  }

  async function getTracking(options: { reference: string }): Promise<TrackingView> {
    const order = await findTrackedOrder(options.reference);
    const [courier, events] = await Promise.all([
      order.courierId ? store.couriers.findById(order.courierId) : null,
      store.orders.listEvents(order.id),
    ]);
    const active = order.status !== 'completed' && order.status !== 'cancelled';
    return {
      reference: options.reference.trim(),
      trackingNumber: order.trackingNumber,
      status: order.status,
      isTest: order.mode === 'test',
      estimatedPickupAt: order.estimatedPickupAt,
      estimatedDeliveryAt: order.estimatedDeliveryAt,
      pickup: { lat: order.pickup.lat, lng: order.pickup.lng, label: order.pickup.label },
      dropoff: Object.assign(roundCoarse(order.dropoff), { label: order.dropoff.label === 'coordinates' ? 'Destination' : order.dropoff.label }),
      driver: courier
        ? {
            name: courier.name,
            phone: courier.phone,
            vehicleType: courier.vehicle,
            vehiclePlate: courier.plate,
            // The position is shared only while the delivery is under way.
            location: active ? courier.location : null,
          }
        : null,
      timeline: events.map((e) => ({ status: e.to, at: e.at })),
    };
  }

  return { getTracking, findTrackedOrder };
}
