import type { Lang } from './i18n.js';

const CLP = new Intl.NumberFormat('es-CL', { style: 'currency', currency: 'CLP' });
const ZONE = 'America/Santiago';
const LOCALES: Record<Lang, string> = { es: 'es-CL', en: 'en-GB' };

/** Pesos as Chileans write them: $12.990 (CLP has no minor unit). */
export const clp = (amount: number) => CLP.format(amount);

const CLOCK = { timeZone: ZONE, hourCycle: 'h23', hour: '2-digit', minute: '2-digit' } as const;
const formats = (lang: Lang) => ({
  time: new Intl.DateTimeFormat(LOCALES[lang], CLOCK),
  day: new Intl.DateTimeFormat(LOCALES[lang], { ...CLOCK, day: 'numeric', month: 'short' }),
  year: new Intl.DateTimeFormat(LOCALES[lang], { ...CLOCK, day: 'numeric', month: 'short', year: 'numeric' }),
});
const FORMATS: Record<Lang, ReturnType<typeof formats>> = { es: formats('es'), en: formats('en') };
/** Santiago's calendar day of an instant ("2026-12-07"). */
const DAY = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' });

/**
 * The one date-and-time format of every app (issue #38): 24-hour Santiago time, whatever the
 * browser's zone, with the day where it is not today and the year where it is not this year
 * ("15:04", "5 dic, 15:04", "5 dic 2025, 15:04").
 */
export function dateTime(iso: string, lang: Lang, now: Date = new Date()): string {
  const at = new Date(iso);
  const f = FORMATS[lang];
  const [day, today] = [DAY.format(at), DAY.format(now)];
  if (day === today) return f.time.format(at);
  return (day.slice(0, 4) === today.slice(0, 4) ? f.day : f.year).format(at);
}

/** An ETA or a deadline: the same format (a time of another day says its day). */
export const time = dateTime;

/** A stop given as bare coordinates has no address (the API labels it `coordinates`): show the point. */
export const placeOf = (stop: { address: string | null; lat: number; lng: number; precision: string }) =>
  stop.precision === 'coordinates' && (stop.address === null || stop.address === 'coordinates') ? `${stop.lat.toFixed(5)}, ${stop.lng.toFixed(5)}` : (stop.address ?? '—');

/**
 * A parcel's or an item's size as the console and the courier app show it: "L × W × H cm" and/or
 * "N kg" (each part only when known), numbers in the page's language; '' when nothing is known.
 */
export function sizeText(size: { lengthCm?: number | null; widthCm?: number | null; heightCm?: number | null; weightKg?: number | null }, lang: Lang): string {
  const n = new Intl.NumberFormat(LOCALES[lang], { maximumFractionDigits: 2 });
  const { lengthCm: l, widthCm: w, heightCm: h, weightKg: kg } = size;
  const sides = l && w && h ? `${n.format(l)} × ${n.format(w)} × ${n.format(h)} cm` : '';
  const weight = kg ? `${n.format(kg)} kg` : '';
  return [sides, weight].filter(Boolean).join(' · ');
}
