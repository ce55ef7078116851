import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Mode } from './api/http.js';
import type { Lang } from './i18n.js';

/** The language every app of the room renders in; each app provides it from its own state. */
export const LangContext = createContext<Lang>('es');
/** The merchant's mode (test/live) for apps that have one; data hooks reload when it changes. */
export const ModeContext = createContext<Mode>('test');

export const useLang = (): Lang => useContext(LangContext);
export const useMode = (): Mode => useContext(ModeContext);
