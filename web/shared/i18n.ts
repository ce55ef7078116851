import { useLang } from './context.js';

export type Lang = 'es' | 'en';
export const LANGS: readonly Lang[] = ['es', 'en'];

/** A page's own strings in both languages: each page module holds its own (no shared dictionary). */
export type Strings<K extends string> = Record<Lang, Record<K, string>>;

export function useStrings<K extends string>(strings: Strings<K>): Record<K, string> {
  return strings[useLang()];
}
