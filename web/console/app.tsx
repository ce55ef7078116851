import { useEffect, useMemo, useState } from 'preact/hooks';
import { dataOf, onSessionEnded } from '../shared/api/errors.js';
import { request, type Mode } from '../shared/api/http.js';
import { closeSocket, onSocketSignedOut } from '../shared/api/socket.js';
import { AppContext, store, storedLang, storedMode, storedSignedIn, type AppState, type Me } from './app-state.js';
import { LangContext, ModeContext } from '../shared/context.js';
import { navigate as plainNavigate } from '../shared/router.js';
import { graphql } from '../shared/graphql.js';
import type { Lang } from '../shared/i18n.js';
import { inMode, match, modeOfPath, navigate, pageOfPath, useLocation } from './router.js';
import { Layout } from './ui/layout.js';

const ME = graphql(`query ConsoleMe { me { role member { email } merchant { id name address } } }`);
const LOG_OUT = graphql(`mutation ConsoleLogOut { logOut { __typename ... on MutationLogOutSuccess { data } ... on AppError { code message } } }`);

const NOT_FOUND = { es: 'Esta página no existe.', en: 'This page does not exist.' };

export function App() {
  const [lang, setLangState] = useState<Lang>(storedLang);
  const [lastMode, setLastMode] = useState<Mode>(storedMode);
  const [me, setMe] = useState<Me | null | undefined>(storedSignedIn() ? undefined : null);
  const { pathname, search } = useLocation();
  // The address names the mode (issue #38): a link to a live order opens it in live, whatever this browser used last.
  const mode = modeOfPath(pathname) ?? lastMode;
  const page = pageOfPath(pathname);
  const found = match(page);

  const state = useMemo<AppState>(() => ({
    lang, mode, me: me ?? null,
    setLang: (next) => { store('lang', next); setLangState(next); },
    setMode: (next) => {
      store('mode', next);
      setLastMode(next);
      // The same page in the other mode (the address's mode is already set: plain navigation).
      if (modeOfPath(window.location.pathname)) plainNavigate(inMode(window.location.pathname, next) + window.location.search);
    },
    refreshMe: async () => {
      const data = await request(ME, {}, mode).catch(() => null);
      const member = data?.me.member;
      setMe(data && member ? { role: data.me.role, email: member.email, merchant: data.me.merchant } : null);
      store('signedIn', member ? '1' : null);
      return !!member;
    },
    signOut: async () => {
      dataOf((await request(LOG_OUT, {}, mode)).logOut);
      closeSocket();
      store('signedIn', null);
      setMe(null);
      navigate('/console/sign-in');
    },
  }), [lang, mode, me]);

  // The address's mode becomes the browser's last (the socket follows by itself: one per mode).
  useEffect(() => {
    if (modeOfPath(pathname) && mode !== lastMode) { store('mode', mode); setLastMode(mode); }
  }, [mode]);
  useEffect(() => { document.documentElement.lang = lang === 'es' ? 'es-CL' : 'en'; }, [lang]);
  useEffect(() => { if (me === undefined) void state.refreshMe(); }, []);
  useEffect(() => {
    const ended = () => { closeSocket(); store('signedIn', null); setMe(null); };
    onSocketSignedOut(ended);
    onSessionEnded(ended);
  }, []);
  const needsSession = !found?.route.public;
  useEffect(() => {
    if (needsSession && me === null) navigate(`/console/sign-in?next=${encodeURIComponent(pathname + search)}`, { replace: true });
    // An address without a mode (an old link, the menu's first page): the same page in the last mode.
    else if (found && needsSession && me && !modeOfPath(pathname)) navigate(inMode(pathname, mode) + search, { replace: true });
  }, [needsSession, me, pathname]);

  let content;
  if (!found) content = <main id="main"><h1>404</h1><p>{NOT_FOUND[lang]}</p></main>;
  else if (found.route.public) content = <found.route.page params={found.params} />;
  else if (!me) content = <main id="main" aria-busy="true" />;
  // Keyed by mode: a switch remounts the page, which reloads its data and resubscribes.
  else content = <Layout pathname={page}><found.route.page key={`${mode}:${pathname}`} params={found.params} /></Layout>;
  return (
    <AppContext.Provider value={state}>
      <LangContext.Provider value={state.lang}>
        <ModeContext.Provider value={state.mode}>{content}</ModeContext.Provider>
      </LangContext.Provider>
    </AppContext.Provider>
  );
}
