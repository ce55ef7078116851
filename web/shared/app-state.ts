import { createContext, type Context } from 'preact';
import { useContext } from 'preact/hooks';
import type { Lang } from './i18n.js';

/** An app's state context and the hook its pages read it with (outside the provider is a bug). */
export function createAppState<S>(): { AppContext: Context<S | null>; useApp: () => S } {
  const AppContext = createContext<S | null>(null);
  return {
    AppContext,
    useApp() {
      const state = useContext(AppContext);
      if (!state) throw new Error('useApp outside <AppContext.Provider>');
      return state;
    },
  };
}

/**
 * What an app keeps in localStorage under `exd.<app>.<key>`: the language, and whether this browser
 * signed in and has not signed out (the session cookie is HttpOnly, so the page cannot see it:
 * without it the app goes straight to sign-in instead of asking for a 401).
 */
export function createStoredSettings<K extends string>(app: string) {
  const keyOf = (key: K | 'lang' | 'signedIn') => `exd.${app}.${key === 'signedIn' ? 'signed-in' : key}`;
  return {
    read: (key: K | 'lang' | 'signedIn') => localStorage.getItem(keyOf(key)),
    storedLang: (): Lang => (localStorage.getItem(keyOf('lang')) === 'en' ? 'en' : 'es'),
    storedSignedIn: (): boolean => localStorage.getItem(keyOf('signedIn')) === '1',
    store(key: K | 'lang' | 'signedIn', value: string | null): void {
      if (value === null) localStorage.removeItem(keyOf(key));
      else localStorage.setItem(keyOf(key), value);
    },
  };
}
