import type { ComponentChildren } from 'preact';
import { useFoldingMenu } from '../../shared/ui/folding-menu.js';
import { LANGS, useStrings, type Strings } from '../../shared/i18n.js';
import { useApp } from '../app-state.js';
import { Link, ROUTES } from '../router.js';
import { RoleName } from './words.js';

const STRINGS: Strings<'ops' | 'menu' | 'language' | 'signOut' | 'role'> = {
  es: { ops: 'Operaciones', menu: 'Menú', language: 'Idioma', signOut: 'Cerrar sesión', role: 'Rol' },
  en: { ops: 'Operations', menu: 'Menu', language: 'Language', signOut: 'Sign out', role: 'Role' },
};
const LANG_NAMES = { es: 'Español', en: 'English' } as const;

/** The header on every signed-in page: menu, language, the operator and its role, sign-out. */
export function Layout({ pathname, children }: { pathname: string; children: ComponentChildren }) {
  const app = useApp();
  const t = useStrings(STRINGS);
  const me = app.me!;
  // On a phone the menu folds behind a button (the console's styles.css); an item, going back or Escape closes it.
  const [menuOpen, setMenuOpen] = useFoldingMenu(pathname);
  const current = (path: string) => path === pathname || (path === '/ops/merchants' && pathname.startsWith('/ops/merchants/')) || (path === '/ops/orders' && pathname.startsWith('/ops/orders/'));
  return (
    <div class="shell">
      <header class="top">
        <div class="brand"><strong>Express Delivery</strong> · {t.ops}</div>
        <button type="button" id="menu-toggle" class="menu-toggle" aria-expanded={menuOpen} aria-controls="ops-nav" onClick={() => setMenuOpen(!menuOpen)}>{t.menu}</button>
        <nav id="ops-nav" aria-label={t.menu} class={menuOpen ? 'open' : undefined} onClick={() => setMenuOpen(false)}>
          {ROUTES.filter((r) => r.nav).map((r) => (
            <Link key={r.path} href={r.path} aria-current={current(r.path) ? 'page' : undefined}>{r.nav![app.lang]}</Link>
          ))}
        </nav>
        <div class="controls">
          <label class="lang">
            <span class="visually-hidden">{t.language}</span>
            <select id="lang-switch" value={app.lang} onChange={(e) => app.setLang(e.currentTarget.value === 'en' ? 'en' : 'es')}>
              {LANGS.map((lang) => <option key={lang} value={lang} lang={lang}>{LANG_NAMES[lang]}</option>)}
            </select>
          </label>
          <span class="member" id="operator">{me.email} · {t.role}: <span id="operator-role" data-role={me.role}><RoleName role={me.role} /></span></span>
          <button type="button" id="sign-out" class="link" onClick={() => void app.signOut()}>{t.signOut}</button>
        </div>
      </header>
      <main id="main">{children}</main>
    </div>
  );
}
