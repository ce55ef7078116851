/**
 * Which positions the app sends: one fix every `everyMs` while standing still, or as soon as the
 * courier has moved `metres` from the last one sent, whichever comes first (battery and data; the
 * server's arrival detection and live ETA need no more). Defaults below; the shell may override them
 * with `data-position-every-s` / `data-position-metres` on #app (see docs/apps.md, "Courier app").
 */
export const COALESCE = { everyMs: 15_000, metres: 50 };

/** One geolocation fix as the app keeps it: the wire fields and its fix time. */
export interface Fix {
  lat: number;
  lng: number;
  accuracy_m?: number;
  heading?: number;
  speed_kmh?: number;
  /** The fix's own time (ISO), not the time it is sent. */
  recorded_at: string;
}

const EARTH_RADIUS_M = 6_371_008.8;
const rad = (deg: number) => (deg * Math.PI) / 180;

/** Great-circle distance in metres. */
export function distanceM(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const dLat = rad(b.lat - a.lat);
  const dLng = rad(b.lng - a.lng);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** A filter over a stream of fixes: true for the ones to send. Fixes older than the last kept are dropped. */
export function createCoalescer(options: { everyMs: number; metres: number } = COALESCE): (fix: Fix) => boolean {
  let last: { fix: Fix; at: number } | null = null;
  return (fix) => {
    const at = Date.parse(fix.recorded_at);
    if (last && at <= last.at) return false;
    if (!last || at - last.at >= options.everyMs || distanceM(last.fix, fix) >= options.metres) {
      last = { fix, at };
      return true;
    }
    return false;
  };
}

/** A browser fix in the wire's units (speed m/s → km/h), within the API's bounds. */
export function fixOf(position: { coords: { latitude: number; longitude: number; accuracy: number; heading: number | null; speed: number | null }; timestamp: number }): Fix {
  const { coords } = position;
  const fix: Fix = { lat: coords.latitude, lng: coords.longitude, recorded_at: new Date(position.timestamp).toISOString() };
  if (Number.isFinite(coords.accuracy)) fix.accuracy_m = Math.min(10_000, Math.max(0, Math.round(coords.accuracy)));
  if (coords.heading !== null && Number.isFinite(coords.heading)) fix.heading = Math.min(360, Math.max(0, coords.heading));
  if (coords.speed !== null && Number.isFinite(coords.speed)) fix.speed_kmh = Math.min(250, Math.max(0, Math.round(coords.speed * 3.6 * 10) / 10));
  return fix;
}

/** The coalescing settings of this page: the shell's data attributes, else COALESCE. */
export function coalesceSettings(root: HTMLElement | null): { everyMs: number; metres: number } {
  const every = Number(root?.dataset.positionEveryS);
  const metres = Number(root?.dataset.positionMetres);
  return {
    everyMs: Number.isFinite(every) && every > 0 ? every * 1000 : COALESCE.everyMs,
    metres: Number.isFinite(metres) && metres > 0 ? metres : COALESCE.metres,
  };
}
