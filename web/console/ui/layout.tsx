import type { ComponentChildren } from 'preact';
import { useApp } from '../app-state.js';
import { useFoldingMenu } from '../../shared/ui/folding-menu.js';
import { LANGS, useStrings, type Strings } from '../../shared/i18n.js';
import { Link, ROUTES } from '../router.js';

const STRINGS: Strings<'console' | 'menu' | 'mode' | 'test' | 'live' | 'testNote' | 'language' | 'signOut' | 'role'> = {
  es: { console: 'Consola', menu: 'Menú', mode: 'Modo', test: 'Prueba', live: 'Real', testNote: 'Modo prueba: pedidos simulados, sin repartidores reales.', language: 'Idioma', signOut: 'Cerrar sesión', role: 'Rol' },
  en: { console: 'Console', menu: 'Menu', mode: 'Mode', test: 'Test', live: 'Live', testNote: 'Test mode: simulated orders, no real couriers.', language: 'Language', signOut: 'Sign out', role: 'Role' },
};
const LANG_NAMES = { es: 'Español', en: 'English' } as const;
const ROLE_NAMES = { es: { owner: 'dueño', dispatcher: 'despachador', viewer: 'lector' }, en: { owner: 'owner', dispatcher: 'dispatcher', viewer: 'viewer' } } as const;

/** The header on every signed-in page: menu, mode switch, language, member, sign-out. */
export function Layout({ pathname, children }: { pathname: string; children: ComponentChildren }) {
  const app = useApp();
  const t = useStrings(STRINGS);
  const me = app.me!;
  // On a phone the menu folds behind a button (styles.css); choosing an item, going back or Escape closes it.
  const [menuOpen, setMenuOpen] = useFoldingMenu(pathname);
  return (
    <div class={`shell mode-${app.mode}`}>
      <header class="top">
        <div class="brand"><strong>Express Delivery</strong> · {t.console} · <span id="merchant-name">{me.merchant.name}</span></div>
        <button type="button" id="menu-toggle" class="menu-toggle" aria-expanded={menuOpen} aria-controls="console-nav" onClick={() => setMenuOpen(!menuOpen)}>{t.menu}</button>
        <nav id="console-nav" aria-label={t.menu} class={menuOpen ? 'open' : undefined} onClick={() => setMenuOpen(false)}>
          {ROUTES.filter((r) => r.nav).map((r) => (
            <Link key={r.path} href={r.path} aria-current={r.path === pathname ? 'page' : undefined}>{r.nav![app.lang]}</Link>
          ))}
        </nav>
        <div class="controls">
          <div role="group" aria-label={t.mode} class="mode-switch" id="mode-switch">
            {(['test', 'live'] as const).map((mode) => (
              <button key={mode} type="button" aria-pressed={app.mode === mode} data-mode={mode} onClick={() => app.setMode(mode)}>{t[mode]}</button>
            ))}
          </div>
          <label class="lang">
            <span class="visually-hidden">{t.language}</span>
            <select id="lang-switch" value={app.lang} onChange={(e) => app.setLang(e.currentTarget.value === 'en' ? 'en' : 'es')}>
              {LANGS.map((lang) => <option key={lang} value={lang} lang={lang}>{LANG_NAMES[lang]}</option>)}
            </select>
          </label>
          <span class="member" id="member">{me.email} · {t.role}: <span id="member-role" data-role={me.role}>{ROLE_NAMES[app.lang][me.role]}</span></span>
          <button type="button" id="sign-out" class="link" onClick={() => void app.signOut()}>{t.signOut}</button>
        </div>
      </header>
      {app.mode === 'test' && <p class="test-banner" id="test-banner">{t.testNote}</p>}
      <main id="main">{children}</main>
    </div>
  );
}
