import type { GeocodeResult, Geocoder } from '../../ports/geocoder.js';
import type { Logger } from '../../logger.js';

interface NominatimRow {
  lat?: string;
  lon?: string;
  display_name?: string;
  place_rank?: number;
  type?: string;
  addresstype?: string;
}

/**
 * Nominatim's place_rank 30 is a house or building (26–27 a street, 16–20 a town or suburb): only
 * then does the point stand for the door. A street or area match is as coarse as the comuna.
 */
function precisionOf(row: NominatimRow): GeocodeResult['precision'] {
  const house = row.addresstype === 'house' || row.type === 'house' || (typeof row.place_rank === 'number' && row.place_rank >= 30);
  return house ? 'street' : 'locality';
}

interface CacheEntry {
  result: GeocodeResult | null;
  expiresAt: number;
}

/**
 * Geocoding through a Nominatim server (GEOCODER_URL), restricted to Chile, with an in-memory
 * LRU cache. When the server fails or times out, the fallback geocoder (the gazetteer) answers.
 */
export function createNominatimGeocoder(options: {
  baseUrl: string;
  fallback: Geocoder;
  logger: Logger;
  timeoutMs?: number;
  cacheSize?: number;
  ttlMs?: number;
  fetchImpl?: typeof fetch;
}): Geocoder {
  const { baseUrl, fallback, logger, timeoutMs = 2000, cacheSize = 10_000, ttlMs = 24 * 3_600_000, fetchImpl = fetch } = options;
  const cache = new Map<string, CacheEntry>();

  function remember(key: string, result: GeocodeResult | null): void {
    if (cache.size >= cacheSize) cache.delete(cache.keys().next().value!);
    // Misses are kept for less time: the address may be fixed upstream.
    cache.set(key, { result, expiresAt: Date.now() + (result ? ttlMs : ttlMs / 24) });
  }

  return {
    async geocode({ address }) {
      const key = address.trim().toLowerCase();
      const hit = cache.get(key);
      if (hit && hit.expiresAt > Date.now()) {
        cache.delete(key);
        cache.set(key, hit);
        return hit.result;
      }
      const url = new URL('search', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
      url.search = new URLSearchParams({ q: address, format: 'jsonv2', limit: '1', countrycodes: 'cl' }).toString();
      try {
        const res = await fetchImpl(url, {
          headers: { accept: 'application/json', 'user-agent': 'express-delivery/1.2.0' },
          signal: AbortSignal.timeout(timeoutMs),
          redirect: 'error',
        });
        if (!res.ok) throw new Error(`nominatim answered ${res.status}`);
        const rows = (await res.json()) as NominatimRow[];
        const first = Array.isArray(rows) ? rows[0] : undefined;
        const lat = Number(first?.lat);
        const lng = Number(first?.lon);
        const result: GeocodeResult | null =
          first && Number.isFinite(lat) && Number.isFinite(lng)
            ? { lat, lng, label: String(first.display_name ?? address).slice(0, 300), source: 'nominatim', precision: precisionOf(first) }
            : await fallback.geocode({ address });
        remember(key, result);
        return result;
      } catch (error) {
        logger.warn({ err: (error as Error).message }, 'nominatim unavailable; using the offline gazetteer');
        return fallback.geocode({ address });
      }
    },
    // Nominatim's label is its display text (street, number, …): the offline comunas name the point.
    localityOf: (options) => fallback.localityOf(options),
  };
}
