import { distanceMeters } from './geo.js';
import { pathLengthM } from './orders/stops.js';
import type { ParcelSize } from './parcels.js';
import { selectVehicle, type Tariff } from './tariffs.js';
import type { LatLng, VehicleType } from './types.js';

export interface Rate {
  id: 'express' | 'batched';
  name: string;
  cost: number;
  estimatedMinutes: number;
  recommended: boolean;
}

export interface RoutePrice {
  currency: 'CLP';
  price: number;
  vehicleType: VehicleType;
  distanceM: number;
  prepTimeMins: number;
  travelMins: number;
  totalMins: number;
  pickupAt: Date;
  deliveryAt: Date;
  rates: Rate[];
}

const roundUpTo10 = (pesos: number) => Math.ceil(pesos / 10) * 10;

/**
 * Prices one route: road distance = great-circle × detour factor; the smallest vehicle that carries
 * the parcel (weight, and size when measured); price = base fare + per-km × road km (CLP, rounded up to 10 pesos); travel at the
 * vehicle's urban speed. The pickup waits for the preparation time; delivery = pickup + travel.
 */
export function priceRoute(options: {
  tariff: Tariff;
  origin: LatLng;
  destination: LatLng;
  weightKg: number;
  /** The parcel's measured size, when known: it may call for a larger vehicle than the weight. */
  size?: ParcelSize | null;
  prepTimeMins: number;
  now: Date;
  /** The least road distance to assume (when an end is known only to its comuna). */
  minRoadM?: number;
  /** A multi-stop route's drop-offs before `destination`, in visiting order: priced along the path, each adding the extra-stop fee. */
  via?: readonly LatLng[];
}): RoutePrice {
  const { tariff, weightKg, prepTimeMins, now } = options;
  const vehicle = selectVehicle(tariff, weightKg, options.size ?? null);
  const via = options.via ?? [];
  const greatCircleM = via.length > 0 ? pathLengthM([options.origin, ...via, options.destination]) : distanceMeters(options.origin, options.destination);
  const distanceM = Math.max(options.minRoadM ?? 0, Math.round(greatCircleM * tariff.detour_factor));
  const roadKm = distanceM / 1000;
  const travelMins = Math.max(1, Math.ceil((roadKm / vehicle.speed_kmh) * 60));
  const price = roundUpTo10(vehicle.base_fare + vehicle.per_km * roadKm + tariff.extra_stop_fee * via.length);
  const totalMins = prepTimeMins + travelMins;
  const pickupAt = new Date(now.getTime() + prepTimeMins * 60_000);
  const deliveryAt = new Date(pickupAt.getTime() + travelMins * 60_000);
  return {
    currency: tariff.currency,
    price,
    vehicleType: vehicle.type,
    distanceM,
    prepTimeMins,
    travelMins,
    totalMins,
    pickupAt,
    deliveryAt,
    rates: [
      { id: 'express', name: `Express (${vehicle.type})`, cost: price, estimatedMinutes: totalMins, recommended: true },
      {
        id: 'batched',
        name: 'Batched (shared route)',
        cost: roundUpTo10(price * (1 - tariff.batched_discount)),
        estimatedMinutes: totalMins + tariff.batched_extra_mins,
        recommended: false,
      },
    ],
  };
}
