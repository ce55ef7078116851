import ngeohash from 'ngeohash';
import { distanceMeters } from '../geo.js';
import type { LatLng } from '../types.js';

export interface ComunaPoint extends LatLng {
  name: string;
}

/** The gazetteer's rule: a point belongs to the nearest comuna point, none beyond this (the service area's edge). */
const MAX_DISTANCE_M = 25_000;
/** Cells a comuna's filter seeks at most: the ones nearest its point (a large rural comuna's edges are left out). */
export const COMUNA_CELLS_MAX = 12;
/** The sampling grid: geohash-6 cells (~1.2 × 0.6 km) within this of the comuna's point. */
const SAMPLE_RADIUS_M = 15_000;

export type ComunaZones = ReturnType<typeof createComunaZones>;

/**
 * Comunas as the store can index them (issue #38): orders carry no comuna, only the pickup's
 * geohash, so a comuna is the geohash-5 cells (~5 km, orders_zone5) its area touches, and an order
 * is in the comuna when its pickup's nearest comuna point is that comuna's (the gazetteer's naming
 * rule). The cells are found once per comuna by sampling geohash-6 cells around its point.
 */
export function createComunaZones(points: readonly ComunaPoint[]) {
  const byKey = new Map(points.map((p) => [key(p.name), p]));
  const cells = new Map<string, string[]>();

  function nearest(at: LatLng): ComunaPoint | null {
    let best: ComunaPoint | null = null;
    let bestDistance = MAX_DISTANCE_M;
    for (const p of points) {
      const d = distanceMeters(at, p);
      if (d <= bestDistance) [best, bestDistance] = [p, d];
    }
    return best;
  }

  function cellsOf(point: ComunaPoint): string[] {
    const known = cells.get(point.name);
    if (known) return known;
    const [south, west] = offset(point, -SAMPLE_RADIUS_M);
    const [north, east] = offset(point, SAMPLE_RADIUS_M);
    const found = new Map<string, number>();
    for (const hash of ngeohash.bboxes(south, west, north, east, 6)) {
      const { latitude, longitude } = ngeohash.decode(hash);
      const center = { lat: latitude, lng: longitude };
      if (nearest(center)?.name !== point.name) continue;
      const cell = hash.slice(0, 5);
      found.set(cell, Math.min(found.get(cell) ?? Infinity, distanceMeters(center, point)));
    }
    found.set(ngeohash.encode(point.lat, point.lng, 5), 0);
    const chosen = [...found].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1)).slice(0, COMUNA_CELLS_MAX).map(([cell]) => cell).sort();
    cells.set(point.name, chosen);
    return chosen;
  }

  return {
    /** Every comuna's name, alphabetically (es-CL). */
    names: (): string[] => points.map((p) => p.name).sort((a, b) => a.localeCompare(b, 'es-CL')),
    /** The comuna named (accents and case ignored) with its cells, or null when no comuna has that name. */
    find(name: string): { name: string; cells: string[] } | null {
      const point = byKey.get(key(name));
      return point ? { name: point.name, cells: cellsOf(point) } : null;
    },
    /** Whether the point is in the comuna by the gazetteer's rule. */
    contains: (name: string, at: LatLng): boolean => nearest(at)?.name === name,
  };
}

const key = (name: string) => name.normalize('NFD').replace(/\p{Diacritic}/gu, '').trim().toLowerCase();

/** The corner `metres` north and east (negative: south and west) of the point, roughly. */
function offset(p: LatLng, metres: number): [number, number] {
  const dLat = metres / 111_195;
  const dLng = metres / (111_195 * Math.cos((p.lat * Math.PI) / 180));
  return [p.lat + dLat, p.lng + dLng];
}
