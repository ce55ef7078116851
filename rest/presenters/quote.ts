import type { BoundQuote } from '../../src/domain/quotes.js';

/** The union of both documented quote response forms (A and B), plus the distance and the quote's binding. */
export function presentQuote(q: BoundQuote) {
  return {
    quote_id: q.id,
    expires_at: q.expiresAt.toISOString(),
    is_test: q.isTest,
    price: q.price,
    currency: q.currency,
    estimated_time_mins: q.totalMins,
    vehicle_type: q.vehicleType,
    prep_time_minutes: q.prepTimeMins,
    travel_time_minutes: q.travelMins,
    total_estimated_minutes: q.totalMins,
    estimated_pickup_time: q.pickupAt.toISOString(),
    estimated_delivery_time: q.deliveryAt.toISOString(),
    scheduled_pickup_at: q.scheduledPickupAt,
    deliver_before: q.deliverBefore,
    distance_m: q.distanceM,
    precision: { origin: q.origin.precision, destination: q.destination.precision },
    rates: q.rates.map((r) => ({
      id: r.id,
      name: r.name,
      cost: r.cost,
      estimated_minutes: r.estimatedMinutes,
      recommended: r.recommended,
    })),
  };
}
