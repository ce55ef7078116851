import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Lang } from '../shared/i18n.js';
import type { Courier, CourierOrder, LatLng } from './api.js';
import type { LinkState } from './live.js';

export interface CourierState {
  lang: Lang;
  courier: Courier;
  orders: CourierOrder[];
  link: LinkState;
  /** Positions on the device not yet acknowledged by the server. */
  backlog: number;
  /** The newest fix of this device (for the geofence verdict and the delivery's coordinates). */
  here: (LatLng & { accuracy_m?: number }) | null;
  /** Why positions are not being taken (permission refused, no GPS), or null. */
  geoError: string | null;
  setLang(lang: Lang): void;
  /** `shiftEndsAt`: going on duty, the planned end (ISO); absent: none. */
  setDuty(onDuty: boolean, shiftEndsAt?: string): Promise<void>;
  reloadOrders(): Promise<void>;
  signOut(): Promise<void>;
}

export const CourierContext = createContext<CourierState | null>(null);

export function useCourier(): CourierState {
  const state = useContext(CourierContext);
  if (!state) throw new Error('useCourier outside <CourierContext.Provider>');
  return state;
}

const KEYS = { lang: 'exd.courier.lang', snapshot: 'exd.courier.snapshot' } as const;

export const storedLang = (): Lang => (localStorage.getItem(KEYS.lang) === 'en' ? 'en' : 'es');
export const storeLang = (lang: Lang) => localStorage.setItem(KEYS.lang, lang);

/** The last courier and job seen, to open without a network (a dead zone, a tunnel). */
export function storedSnapshot(): { courier: Courier; orders: CourierOrder[] } | null {
  try {
    const value = JSON.parse(localStorage.getItem(KEYS.snapshot) ?? 'null') as { courier: Courier; orders: CourierOrder[] } | null;
    return value?.courier ? value : null;
  } catch {
    return null;
  }
}
export function storeSnapshot(snapshot: { courier: Courier; orders: CourierOrder[] } | null): void {
  if (snapshot) localStorage.setItem(KEYS.snapshot, JSON.stringify(snapshot));
  else localStorage.removeItem(KEYS.snapshot);
}
