import { createAppState, createStoredSettings } from '../shared/app-state.js';
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

export const { AppContext, useApp } = createAppState<AppState>();

export const { store, storedLang, storedSignedIn } = createStoredSettings<never>('ops');
