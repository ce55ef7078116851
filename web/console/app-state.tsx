import type { Mode } from '../shared/api/http.js';
import { createAppState, createStoredSettings } from '../shared/app-state.js';
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

export const { AppContext, useApp } = createAppState<AppState>();

const settings = createStoredSettings<'mode'>('console');
export const { store, storedLang, storedSignedIn } = settings;
export const storedMode = (): Mode => (settings.read('mode') === 'live' ? 'live' : 'test');
