import { z } from 'zod';
import { AppError, ParcelCapacityError } from './errors.js';
import type { ParcelSize } from './parcels.js';
import { VEHICLE_TYPES, type VehicleType } from './types.js';

const vehicleTariffSchema = z.strictObject({
  type: z.enum(VEHICLE_TYPES),
  max_kg: z.number().positive(),
  base_fare: z.number().int().nonnegative(),
  per_km: z.number().int().nonnegative(),
  speed_kmh: z.number().positive().max(120),
  /** The load space in litres; absent: not limited by volume. */
  max_volume_l: z.number().positive().optional(),
  /** The longest side that fits, in cm; absent: not limited by length. */
  max_length_cm: z.number().positive().optional(),
});

/**
 * Tariff table (CLP, integer pesos). Vehicles are listed from smallest to largest; fares never
 * fall as capacity grows, so a heavier parcel can never be cheaper.
 */
export const tariffSchema = z
  .strictObject({
    currency: z.literal('CLP'),
    detour_factor: z.number().min(1).max(3),
    /** Minutes for an assigned courier to reach the pickup when no courier position is known. */
    default_approach_mins: z.number().int().min(0).max(120),
    /** The batched rate: cheaper, delivered within a wider window. */
    batched_discount: z.number().min(0).max(0.9),
    batched_extra_mins: z.number().int().min(0).max(24 * 60),
    vehicles: z.array(vehicleTariffSchema).min(1),
    /**
     * What cancelling costs (CLP), by how far the order got: free while `new`; after pickup it is
     * refused. Absent from a file: cancelling stays free, as before the policy existed.
     */
    cancellation: z
      .strictObject({
        assigned_fee: z.number().int().nonnegative(),
        at_pickup_fee: z.number().int().nonnegative(),
      })
      .refine((c) => c.at_pickup_fee >= c.assigned_fee, { message: 'at_pickup_fee must not be less than assigned_fee', path: ['at_pickup_fee'] })
      .default({ assigned_fee: 0, at_pickup_fee: 0 }),
    /**
     * What bringing a parcel back to the pickup after a failed delivery attempt costs (CLP), charged
     * when the return leg starts. Absent from a file: returns are free.
     */
    return_fee: z.number().int().nonnegative().default(0),
    /** What each drop-off after the first of a multi-stop order adds (CLP). Absent from a file: nothing. */
    extra_stop_fee: z.number().int().nonnegative().default(0),
  })
  .superRefine((t, ctx) => {
    for (let i = 1; i < t.vehicles.length; i++) {
      const [a, b] = [t.vehicles[i - 1]!, t.vehicles[i]!];
      if (b.max_kg <= a.max_kg || b.base_fare < a.base_fare || b.per_km < a.per_km) {
        ctx.addIssue({ code: 'custom', path: ['vehicles', i], message: 'vehicles must grow in capacity with fares that never fall' });
      }
      // A larger class never holds less: else a parcel could fit a bike and not the car after it.
      for (const limit of ['max_volume_l', 'max_length_cm'] as const) {
        if (a[limit] !== undefined && (b[limit] ?? Infinity) < a[limit]) {
          ctx.addIssue({ code: 'custom', path: ['vehicles', i, limit], message: `must not be less than the smaller vehicle's ${limit}` });
        }
      }
    }
  });

export type Tariff = z.output<typeof tariffSchema>;
export type VehicleTariff = Tariff['vehicles'][number];

export const DEFAULT_SANTIAGO_TARIFF: Tariff = {
  currency: 'CLP',
  detour_factor: 1.3,
  default_approach_mins: 10,
  batched_discount: 0.25,
  batched_extra_mins: 90,
  cancellation: { assigned_fee: 990, at_pickup_fee: 1990 },
  return_fee: 1990,
  extra_stop_fee: 790,
  vehicles: [
    // Volumes: a courier backpack, a motorcycle top box, a hatchback's boot, a small van's load space.
    { type: 'bike', max_kg: 6, base_fare: 1990, per_km: 390, speed_kmh: 14, max_volume_l: 40, max_length_cm: 50 },
    { type: 'motorcycle', max_kg: 20, base_fare: 2490, per_km: 490, speed_kmh: 26, max_volume_l: 90, max_length_cm: 60 },
    { type: 'car', max_kg: 150, base_fare: 3490, per_km: 690, speed_kmh: 22, max_volume_l: 400, max_length_cm: 120 },
    { type: 'van', max_kg: 800, base_fare: 6990, per_km: 990, speed_kmh: 20, max_volume_l: 3000, max_length_cm: 250 },
  ],
};

const fits = (v: VehicleTariff, weightKg: number, size: ParcelSize | null) =>
  v.max_kg >= weightKg && (!size || ((v.max_volume_l ?? Infinity) >= size.volumeL && (v.max_length_cm ?? Infinity) >= size.longestCm));

/**
 * The smallest vehicle class that carries the parcel: its weight, and its volume and longest side
 * when measured. Too heavy for every class is WEIGHT_EXCEEDS_CAPACITY (as before sizes existed);
 * carried by weight but too big for every class is 422 PARCEL_EXCEEDS_CAPACITY, with the largest
 * class's limits.
 */
export function selectVehicle(tariff: Tariff, weightKg: number, size: ParcelSize | null = null): VehicleTariff {
  const vehicle = tariff.vehicles.find((v) => fits(v, weightKg, size));
  if (vehicle) return vehicle;
  const largest = tariff.vehicles.at(-1)!;
  if (largest.max_kg < weightKg) {
    throw new AppError('WEIGHT_EXCEEDS_CAPACITY', `No vehicle carries ${weightKg} kg; the largest (${largest.type}) carries ${largest.max_kg} kg`);
  }
  throw new ParcelCapacityError({
    limits: { vehicleType: largest.type, maxKg: largest.max_kg, maxVolumeL: largest.max_volume_l ?? null, maxLengthCm: largest.max_length_cm ?? null },
    parcel: { weightKg, ...size! },
  });
}

export function vehicleTariff(tariff: Tariff, type: VehicleType): VehicleTariff | undefined {
  return tariff.vehicles.find((v) => v.type === type);
}

/** Vehicle classes able to carry what `type` carries (the class itself and every larger one). */
export function vehiclesAtLeast(tariff: Tariff, type: VehicleType): VehicleType[] {
  const index = tariff.vehicles.findIndex((v) => v.type === type);
  return index < 0 ? [] : tariff.vehicles.slice(index).map((v) => v.type);
}
