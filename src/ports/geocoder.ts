import type { LatLng } from '../domain/types.js';

export interface GeocodeResult extends LatLng {
  /** What the address was matched to, e.g. the comuna name. */
  label: string;
  source: 'gazetteer' | 'nominatim';
  /** `street` only when the geocoder matched the house itself; else the point stands for the comuna. */
  precision: 'street' | 'locality';
}

export interface Geocoder {
  /** Resolves free-text address to coordinates; null when it cannot be placed. */
  geocode(options: { address: string }): Promise<GeocodeResult | null>;
  /**
   * The comuna a point lies in, named for the public (tracking): the comuna found in `matched` (what
   * geocode() answered as label) when there is one, else the comuna whose point is nearest; null
   * when none is near. Offline and synchronous: never street text, never a network call.
   */
  localityOf(options: { point: LatLng; matched?: string }): string | null;
}
