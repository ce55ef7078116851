import { readFileSync } from 'node:fs';
import type { GeocodeResult, Geocoder } from '../../ports/geocoder.js';

interface Place {
  name: string;
  key: string;
  lat: number;
  lng: number;
}

/** Lowercase, accents removed, punctuation collapsed to single spaces. */
export function normalizePlaceText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

const ALIASES: Record<string, string> = {
  'til til': 'Tiltil',
  'santiago centro': 'Santiago',
  stgo: 'Santiago',
  'stgo centro': 'Santiago',
};

/** "Santiago" is also the city and region name: it wins only when no other comuna is named. */
const CITY_NAME = 'Santiago';

export function loadComunas(file = new URL('./santiago-comunas.csv', import.meta.url)): Place[] {
  const [header, ...rows] = readFileSync(file, 'utf8').trim().split(/\r?\n/);
  const cols = header!.split(',');
  const at = (name: string) => cols.indexOf(name);
  return rows.map((row) => {
    const cells = row.split(',');
    const name = cells[at('comuna')]!;
    return { name, key: normalizePlaceText(name), lat: Number(cells[at('lat')]), lng: Number(cells[at('lng')]) };
  });
}

/**
 * Offline geocoder: finds the comunas of the Región Metropolitana named in the address text
 * (accent- and case-insensitive, whole words) and answers with the comuna's point. With several,
 * the one named last wins (the comuna usually follows the street: "Av. Providencia 100, Santiago").
 */
export function createGazetteerGeocoder(places: Place[] = loadComunas()): Geocoder {
  const byName = new Map(places.map((p) => [p.name, p]));
  const keys: Array<{ key: string; place: Place }> = [
    ...places.map((place) => ({ key: place.key, place })),
    ...Object.entries(ALIASES).map(([key, name]) => ({ key, place: byName.get(name)! })),
  ];
  return {
    async geocode({ address }): Promise<GeocodeResult | null> {
      const text = ` ${normalizePlaceText(address)} `;
      let best: { place: Place; end: number; length: number } | null = null;
      for (const { key, place } of keys) {
        const index = text.lastIndexOf(` ${key} `);
        if (index < 0) continue;
        const candidate = { place, end: index + key.length, length: key.length };
        if (!best || ranksHigher(candidate, best)) best = candidate;
      }
      return best ? { lat: best.place.lat, lng: best.place.lng, label: best.place.name, source: 'gazetteer' } : null;
    },
  };
}

function ranksHigher(a: { place: Place; end: number; length: number }, b: { place: Place; end: number; length: number }): boolean {
  const aCity = a.place.name === CITY_NAME;
  const bCity = b.place.name === CITY_NAME;
  if (aCity !== bCity) return bCity;
  if (a.end !== b.end) return a.end > b.end;
  return a.length > b.length;
}
