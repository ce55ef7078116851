import type { Lang } from './i18n.js';

const CLP = new Intl.NumberFormat('es-CL', { style: 'currency', currency: 'CLP' });
const ZONE = 'America/Santiago';
const LOCALES: Record<Lang, string> = { es: 'es-CL', en: 'en-GB' };

/** Pesos as Chileans write them: $12.990 (CLP has no minor unit). */
export const clp = (amount: number) => CLP.format(amount);

/** A date and time on Santiago's clock, whatever the browser's zone. */
export const dateTime = (iso: string, lang: Lang) =>
  new Intl.DateTimeFormat(LOCALES[lang], { timeZone: ZONE, dateStyle: 'short', timeStyle: 'short' }).format(new Date(iso));

export const time = (iso: string, lang: Lang) =>
  new Intl.DateTimeFormat(LOCALES[lang], { timeZone: ZONE, timeStyle: 'short' }).format(new Date(iso));

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
