import type { StopTrackingView, TrackingView } from '../domain/tracking.js';

/**
 * The public tracking view on the wire, shared by every entrance that shows it (REST
 * GET /tracking/{ref}, the live socket's snapshots, hence the page): the spec's tracking response
 * (reference, status, driver{name, phone, location}) plus ETA and timeline.
 */
export function presentTracking(view: TrackingView) {
  return {
    reference: view.reference,
    tracking_number: view.trackingNumber,
    status: view.status,
    is_test: view.isTest,
    estimated_pickup_time: view.estimatedPickupAt,
    estimated_delivery_time: view.estimatedDeliveryAt,
    pickup: view.pickup,
    dropoff: view.dropoff,
    driver: view.driver && {
      name: view.driver.name,
      phone: view.driver.phone,
      vehicle_type: view.driver.vehicleType,
      vehicle_plate: view.driver.vehiclePlate,
      location: view.driver.location,
    },
    timeline: view.timeline,
  };
}

/** One stop's public view on the wire (REST GET /tracking/stops/{booking_id}/{stop_id}). */
export function presentStopTracking(view: StopTrackingView) {
  return {
    stop_id: view.stopId,
    status: view.status,
    order_status: view.orderStatus,
    is_test: view.isTest,
    eta: view.eta,
    dropoff: view.dropoff,
    stops_ahead: view.stopsAhead,
    driver: view.driver && { name: view.driver.name, vehicle_type: view.driver.vehicleType, vehicle_plate: view.driver.vehiclePlate, location: view.driver.location },
  };
}
