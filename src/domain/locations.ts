import { z } from 'zod';
import type { Geocoder } from '../ports/geocoder.js';
import { AppError } from './errors.js';
import { isInServiceArea } from './geo.js';
import type { LatLng, LocationPrecision } from './types.js';

export const latLngSchema = z.strictObject({
  lat: z.number().min(-90).max(90),
  lng: z.number().min(-180).max(180),
});

/** The spec's Address resource. */
export const addressSchema = z.strictObject({
  address: z.string().trim().min(3).max(300),
  coords: latLngSchema.optional(),
  number: z.string().trim().max(20).optional(),
  instructions: z.string().trim().max(500).optional(),
});

/** Where a location may come from: full address text, coordinates, or an Address object. */
export const locationInputSchema = z.union([z.string().trim().min(3).max(300), addressSchema, latLngSchema]);

export type LocationInput = z.output<typeof locationInputSchema>;

export interface ResolvedLocation extends LatLng {
  /** The address text as given (null when only coordinates were given). */
  address: string | null;
  number: string | null;
  instructions: string | null;
  /** What the geocoder matched, or "coordinates". */
  label: string;
  precision: LocationPrecision;
}

/** Coordinates skip geocoding; text goes to the geocoder. Outside the service area is refused. */
export async function resolveLocation(options: { geocoder: Geocoder; input: LocationInput; field: string }): Promise<ResolvedLocation> {
  const { input, field } = options;
  const text = typeof input === 'string' ? input : 'address' in input ? input.address : null;
  const extra = typeof input === 'object' && 'address' in input ? input : undefined;
  let point: LatLng & { label: string; precision: LocationPrecision };
  const given = typeof input === 'object' ? ('address' in input ? input.coords : input) : undefined;
  if (given) {
    point = { lat: given.lat, lng: given.lng, label: 'coordinates', precision: 'coordinates' };
  } else {
    const query = [text, extra?.number].filter(Boolean).join(' ');
    const found = await options.geocoder.geocode({ address: query });
    if (!found) {
      throw new AppError('GEOCODING_FAILED', `Could not place the ${field} address "${text}" in the service area (Región Metropolitana)`, {
        fields: [{ field, message: 'address cannot be geocoded' }],
      });
    }
    point = found;
  }
  if (!isInServiceArea(point)) {
    throw new AppError('OUTSIDE_SERVICE_AREA', `The ${field} is outside the service area (Región Metropolitana de Santiago)`, {
      fields: [{ field, message: 'outside the service area' }],
    });
  }
  return {
    lat: point.lat,
    lng: point.lng,
    label: point.label,
    precision: point.precision,
    address: text,
    number: extra?.number ?? null,
    instructions: extra?.instructions ?? null,
  };
}

/**
 * A typical road distance within one comuna: two random points in a disc of Santiago's median urban
 * comuna (about 20 km²) lie 0.9 radii ≈ 2.3 km apart, × 1.3 for the streets. Where an end of a
 * route is known only to its comuna, the route is assumed at least this long, so two addresses in
 * the same comuna (the same point) never quote 0 m and 1 minute.
 */
export const LOCALITY_ROAD_FLOOR_M = 3_000;

export function minRoadMetres(origin: { precision: LocationPrecision }, destination: { precision: LocationPrecision }): number {
  return origin.precision === 'locality' || destination.precision === 'locality' ? LOCALITY_ROAD_FLOOR_M : 0;
}
