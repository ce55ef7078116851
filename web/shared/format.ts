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
