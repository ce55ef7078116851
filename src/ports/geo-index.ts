import type { LatLng, Mode, VehicleType } from '../domain/types.js';

export interface NearbyCourier {
  courierId: string;
  distanceM: number;
}

/**
 * Where the available couriers are. Only couriers free to take work are in it: dispatch removes a
 * courier when it claims it and puts it back when the courier frees up. The store stays the
 * source of truth (claims are compare-and-set there); this index only proposes candidates.
 */
export interface CourierGeoIndex {
  upsert(options: { courierId: string; mode: Mode; vehicle: VehicleType; location: LatLng }): Promise<void>;
  remove(options: { courierId: string; mode: Mode; vehicle: VehicleType }): Promise<void>;
  /** Nearest first; only couriers of the given mode and vehicle types, within maxDistanceM when given. */
  nearest(options: { mode: Mode; vehicles: VehicleType[]; point: LatLng; limit: number; maxDistanceM?: number }): Promise<NearbyCourier[]>;
}
