import type { LatLng } from '../domain/types.js';

export interface GeocodeResult extends LatLng {
  /** What the address was matched to, e.g. the comuna name. */
  label: string;
  source: 'gazetteer' | 'nominatim';
}

export interface Geocoder {
  /** Resolves free-text address to coordinates; null when it cannot be placed. */
  geocode(options: { address: string }): Promise<GeocodeResult | null>;
}
