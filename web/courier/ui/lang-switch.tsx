import { useLang } from '../../shared/context.js';
import type { Lang } from '../../shared/i18n.js';

/** Español / English, kept on this phone. */
export function LangSwitch({ setLang }: { setLang: (lang: Lang) => void }) {
  const lang = useLang();
  return (
    <select id="lang-switch" aria-label={lang === 'es' ? 'Idioma' : 'Language'} value={lang} onChange={(e) => setLang(e.currentTarget.value === 'en' ? 'en' : 'es')}>
      <option value="es" lang="es">Español</option>
      <option value="en" lang="en">English</option>
    </select>
  );
}
