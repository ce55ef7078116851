import { readFileSync } from 'node:fs';
import { distanceMeters } from '../../domain/geo.js';
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

const MAX_REMEMBERED_ADDRESSES = 10_000;

/** Beyond this from every comuna point, a point is named by no comuna (the service area's edge). */
const MAX_LOCALITY_DISTANCE_M = 25_000;

/** Words that make the name after them a street ("Av. Providencia 100"), not the comuna. */
const STREET_WORDS = new Set(['av', 'avda', 'avenida', 'calle', 'pasaje', 'pje', 'psje', 'camino']);

interface Match {
  place: Place;
  end: number;
  length: number;
  /** The name follows a street word: a street named after a comuna. */
  street: boolean;
}

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
 * the one named last wins (the comuna usually follows the street: "Av. Providencia 100, Santiago");
 * a name right after a street word is the street, used only when no comuna is named.
 */
export function createGazetteerGeocoder(places: Place[] = loadComunas()): Geocoder {
  const byName = new Map(places.map((p) => [p.name, p]));
  const keys: Array<{ key: string; place: Place }> = [
    ...places.map((place) => ({ key: place.key, place })),
    ...Object.entries(ALIASES).map(([key, name]) => ({ key, place: byName.get(name)! })),
  ];
  // Keys grouped by their first word, built once: a lookup costs one map probe per word of the
  // address instead of a substring search per key.
  const byFirstWord = new Map<string, Array<{ key: string; place: Place }>>();
  for (const entry of keys) {
    const first = entry.key.split(' ')[0]!;
    byFirstWord.set(first, [...(byFirstWord.get(first) ?? []), entry]);
  }
  // The same few addresses come back all day (a shop's own address on every quote): answers are
  // remembered by exact text, up to a bound, then the memory starts over.
  const answers = new Map<string, Readonly<GeocodeResult> | null>();
  return {
    async geocode({ address }): Promise<GeocodeResult | null> {
      let answer = answers.get(address);
      if (answer === undefined) {
        if (answers.size >= MAX_REMEMBERED_ADDRESSES) answers.clear();
        answer = findComuna(address);
        answers.set(address, answer && Object.freeze(answer));
      }
      return answer;
    },
    localityOf({ point, matched }) {
      const named = matched && matched !== 'coordinates' ? findComuna(matched) : null;
      if (named) return named.label;
      let nearest: Place | null = null;
      let best = MAX_LOCALITY_DISTANCE_M;
      for (const place of places) {
        const d = distanceMeters(point, place);
        if (d <= best) [nearest, best] = [place, d];
      }
      return nearest?.name ?? null;
    },
  };

  function findComuna(address: string): GeocodeResult | null {
    const text = normalizePlaceText(address);
    let best: Match | null = null;
    let previousWord = '';
    for (let start = 0; start < text.length; ) {
      const space = text.indexOf(' ', start);
      const stop = space < 0 ? text.length : space;
      const word = text.slice(start, stop);
      for (const { key, place } of byFirstWord.get(word) ?? []) {
        const end = start + key.length;
        if (!text.startsWith(key, start) || (end < text.length && text[end] !== ' ')) continue;
        const candidate = { place, end, length: key.length, street: STREET_WORDS.has(previousWord) };
        if (!best || ranksHigher(candidate, best)) best = candidate;
      }
      previousWord = word;
      start = stop + 1;
    }
    return best ? { lat: best.place.lat, lng: best.place.lng, label: best.place.name, source: 'gazetteer', precision: 'locality' } : null;
  }
}

/** A comuna beats a street named like one; another comuna beats "Santiago"; then the last named, then the longest. */
function ranksHigher(a: Match, b: Match): boolean {
  if (a.street !== b.street) return b.street;
  const aCity = a.place.name === CITY_NAME;
  const bCity = b.place.name === CITY_NAME;
  if (aCity !== bCity) return bCity;
  if (a.end !== b.end) return a.end > b.end;
  return a.length > b.length;
}
