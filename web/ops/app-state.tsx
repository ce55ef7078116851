import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Lang } from '../shared/i18n.js';

export type OperatorRole = 'admin' | 'dispatcher' | 'support';
export type Permission = 'read' | 'notes' | 'dispatch' | 'manage';
export interface Me { id: string; email: string; role: OperatorRole }

/** The server decides (src/domain/operators/roles.ts); the app mirrors it to hide what a role may not do. */
const GRANTS: Record<OperatorRole, readonly Permission[]> = {
  admin: ['read', 'notes', 'dispatch', 'manage'],
  dispatcher: ['read', 'notes', 'dispatch'],
  support: ['read', 'notes'],
};
export const may = (me: Me | null, permission: Permission) => !!me && GRANTS[me.role].includes(permission);

export interface AppState {
  lang: Lang;
  me: Me | null;
  setLang(lang: Lang): void;
  /** Reads `operatorMe` again (after sign-in); resolves false when there is no session. */
  refreshMe(): Promise<boolean>;
  signOut(): Promise<void>;
}

export const AppContext = createContext<AppState | null>(null);

export function useApp(): AppState {
  const state = useContext(AppContext);
  if (!state) throw new Error('useApp outside <AppContext.Provider>');
  return state;
}

const STORED = { lang: 'exd.ops.lang', signedIn: 'exd.ops.signed-in' } as const;

export const storedLang = (): Lang => (localStorage.getItem(STORED.lang) === 'en' ? 'en' : 'es');
/** As in the console: the cookie is HttpOnly, so the page remembers whether it signed in. */
export const storedSignedIn = (): boolean => localStorage.getItem(STORED.signedIn) === '1';
export function store(key: keyof typeof STORED, value: string | null): void {
  if (value === null) localStorage.removeItem(STORED[key]);
  else localStorage.setItem(STORED[key], value);
}
