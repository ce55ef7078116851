import type { Clock } from '../../ports/clock.js';
import { AppError, GeofenceError } from '../errors.js';
import { distanceMeters, isPreciseStop } from '../geo.js';
import type { DeliveryProof, GeofenceOutcome, Order } from '../types.js';
import type { MerchantPrincipal } from '../auth.js';
import type { ConfirmDeliveryCommand } from './schemas.js';
import type { OrderService } from './service.js';
import { assertReachable } from './state-machine.js';
import type { Actor, OrderTransitions } from './transitions.js';

export type DeliveryService = ReturnType<typeof createDeliveryService>;

const GEOFENCE_REASONS: Record<GeofenceOutcome, string | null> = {
  passed: null,
  bypassed: 'geofence bypassed',
  unverified: 'geofence unverified: the drop-off is known only to its comuna (locality precision)',
};

/**
 * The radius is checked only where the drop-off is precise (coordinates or a house-number match):
 * a comuna's point says nothing about the door, so there the delivery is accepted as unverified.
 */
function geofenceOutcome(options: { order: Order; bypass: boolean }): GeofenceOutcome {
  if (options.bypass) return 'bypassed';
  return isPreciseStop(options.order.dropoff) ? 'passed' : 'unverified';
}

/**
 * Proof of delivery: the assigned courier, at the drop-off (great-circle distance from `coords`
 * within `geofence_radius` metres where the drop-off is precise, unless `bypass`; the outcome is
 * recorded), with photo and signature.
 * From `picked_up` the arrival is recorded first, then the completion.
 */
export function createDeliveryService(deps: { orders: OrderService; transitions: OrderTransitions; clock: Clock }) {
  const { orders, transitions, clock } = deps;

  /** The delivery of an order already found (by the merchant's ref or among the courier's own orders). */
  async function deliverOrder(options: { order: Order; input: ConfirmDeliveryCommand; actor: Actor; courierId?: string }): Promise<{ order: Order; proof: DeliveryProof }> {
    const { order, input } = options;
    if (options.courierId !== undefined && input.driverId !== options.courierId) {
      throw new AppError('FORBIDDEN', 'driver_id must be your own courier id');
    }
    if (order.courierId !== input.driverId) {
      throw new AppError('FORBIDDEN', 'driver_id is not the courier assigned to this order');
    }
    // The state comes before the geofence: a delivery the table forbids is refused whatever the position.
    assertReachable(order.status, 'completed');
    const distanceM = Math.round(distanceMeters(input.coords, order.dropoff) * 10) / 10;
    const geofence = geofenceOutcome({ order, bypass: input.bypass });
    if (geofence === 'passed' && distanceM > input.geofenceRadius) {
      throw new GeofenceError({ distanceM, radiusM: input.geofenceRadius });
    }
    const proof: DeliveryProof = {
      driverId: input.driverId, coords: input.coords, distanceM, radiusM: input.geofenceRadius, bypass: input.bypass, geofence,
      photoUrl: input.photoUrl, signatureUrl: input.signatureUrl, deliveredAt: clock.now().toISOString(),
    };
    const completed = await transitions.transition({
      order, to: 'completed', actor: options.actor, patch: { proof }, location: input.coords, reason: GEOFENCE_REASONS[geofence],
    });
    await orders.afterOrderEnded(completed);
    return { order: completed, proof };
  }

  /** The merchant confirms the delivery of one of its orders, by any of its references. */
  async function confirmDelivery(options: { principal: MerchantPrincipal; ref: string; input: ConfirmDeliveryCommand }) {
    const order = await orders.getOrder(options);
    return deliverOrder({ order, input: options.input, actor: { kind: 'merchant', id: options.principal.merchant.id } });
  }

  return { confirmDelivery, deliverOrder };
}
