import type { Clock } from '../../ports/clock.js';
import { AppError } from '../errors.js';
import { distanceMeters } from '../geo.js';
import type { DeliveryProof, Order } from '../types.js';
import { parseInput } from '../validation.js';
import { deliverOrderSchema } from './schemas.js';
import type { OrderService } from './service.js';
import { assertReachable } from './state-machine.js';
import type { Actor, OrderTransitions } from './transitions.js';

export type DeliveryService = ReturnType<typeof createDeliveryService>;

/**
 * Proof of delivery: the assigned courier, at the drop-off (great-circle distance from `coords`
 * within `geofence_radius` metres, unless `bypass` — which is recorded), with photo and signature.
 * From `picked_up` the arrival is recorded first, then the completion.
 */
export function createDeliveryService(deps: { orders: OrderService; transitions: OrderTransitions; clock: Clock }) {
  const { orders, transitions, clock } = deps;

  async function confirmDelivery(options: { order: Order; input: unknown; actor: Actor; courierId?: string }): Promise<{ order: Order; proof: DeliveryProof }> {
    const input = parseInput(deliverOrderSchema, options.input);
    const { order } = options;
    if (options.courierId !== undefined && input.driver_id !== options.courierId) {
      throw new AppError('FORBIDDEN', 'driver_id must be your own courier id');
    }
    if (order.courierId !== input.driver_id) {
      throw new AppError('FORBIDDEN', 'driver_id is not the courier assigned to this order');
    }
    // The state comes before the geofence: a delivery the table forbids is refused whatever the position.
    assertReachable(order.status, 'completed');
    const distanceM = Math.round(distanceMeters(input.coords, order.dropoff) * 10) / 10;
    if (!input.bypass && distanceM > input.geofence_radius) {
      throw new AppError('GEOFENCE_FAILED', `The courier is ${distanceM} m from the drop-off; the geofence allows ${input.geofence_radius} m`, {
        details: { distance_m: distanceM, radius_m: input.geofence_radius },
      });
    }
    const proof: DeliveryProof = {
      driverId: input.driver_id, coords: input.coords, distanceM, radiusM: input.geofence_radius, bypass: input.bypass,
      photoUrl: input.photo_url, signatureUrl: input.signature_url, deliveredAt: clock.now().toISOString(),
    };
    const completed = await transitions.transition({
      order, to: 'completed', actor: options.actor, patch: { proof }, location: input.coords, reason: input.bypass ? 'geofence bypassed' : null,
    });
    await orders.afterOrderEnded(completed);
    return { order: completed, proof };
  }

  return { confirmDelivery };
}
