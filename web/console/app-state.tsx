import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Mode } from '../shared/api/http.js';
import type { Lang } from '../shared/i18n.js';

export interface Me {
  role: 'owner' | 'dispatcher' | 'viewer';
  email: string;
  merchant: { id: string; name: string; address: string | null };
}

export interface AppState {
  lang: Lang;
  mode: Mode;
  /** The signed-in member, null before sign-in. */
  me: Me | null;
  setLang(lang: Lang): void;
  /** Persisted; every page reloads its data and resubscribes in the new mode. */
  setMode(mode: Mode): void;
  /** Reads `me` again (after sign-in); resolves false when there is no session. */
  refreshMe(): Promise<boolean>;
  signOut(): Promise<void>;
}

export const AppContext = createContext<AppState | null>(null);

export function useApp(): AppState {
  const state = useContext(AppContext);
  if (!state) throw new Error('useApp outside <AppContext.Provider>');
  return state;
}

const STORED = { lang: 'exd.console.lang', mode: 'exd.console.mode', signedIn: 'exd.console.signed-in' } as const;

export function storedLang(): Lang {
  return localStorage.getItem(STORED.lang) === 'en' ? 'en' : 'es';
}
export function storedMode(): Mode {
  return localStorage.getItem(STORED.mode) === 'live' ? 'live' : 'test';
}
/**
 * Whether this browser signed in and has not signed out (the cookie is HttpOnly, so the page cannot
 * see it): without it the console goes straight to sign-in instead of asking `me` for a 401.
 */
export function storedSignedIn(): boolean {
  return localStorage.getItem(STORED.signedIn) === '1';
}
export function store(key: keyof typeof STORED, value: string | null): void {
  if (value === null) localStorage.removeItem(STORED[key]);
  else localStorage.setItem(STORED[key], value);
}
