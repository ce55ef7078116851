import { useEffect, useMemo, useState } from 'preact/hooks';
import { onSessionEnded } from '../shared/api/errors.js';
import { operatorRequest } from '../shared/api/http.js';
import { closeOperatorSocket } from '../shared/api/socket.js';
import { LangContext } from '../shared/context.js';
import { graphql } from '../shared/graphql.js';
import type { Lang } from '../shared/i18n.js';
import { AppContext, store, storedLang, storedSignedIn, type AppState, type Me } from './app-state.js';
import { match, navigate, useLocation } from './router.js';
import { Layout } from './ui/layout.js';

const ME = graphql(`query OpsMe { operatorMe { id email role } }`);
const SIGN_OUT = graphql(`mutation OpsSignOut { operatorSignOut { __typename ... on MutationOperatorSignOutSuccess { data } ... on AppError { code message } } }`);

const NOT_FOUND = { es: 'Esta página no existe.', en: 'This page does not exist.' };

export function App() {
  const [lang, setLangState] = useState<Lang>(storedLang);
  const [me, setMe] = useState<Me | null | undefined>(storedSignedIn() ? undefined : null);
  const { pathname, search } = useLocation();
  const found = match(pathname);

  const state = useMemo<AppState>(() => ({
    lang, me: me ?? null,
    setLang: (next) => { store('lang', next); setLangState(next); },
    refreshMe: async () => {
      const data = await operatorRequest(ME, {}).catch(() => null);
      setMe(data?.operatorMe ?? null);
      store('signedIn', data ? '1' : null);
      return !!data;
    },
    signOut: async () => {
      await operatorRequest(SIGN_OUT, {}).catch(() => null);
      closeOperatorSocket();
      store('signedIn', null);
      setMe(null);
      navigate('/ops/sign-in');
    },
  }), [lang, me]);

  useEffect(() => { document.documentElement.lang = lang === 'es' ? 'es-CL' : 'en'; }, [lang]);
  useEffect(() => { if (me === undefined) void state.refreshMe(); }, []);
  useEffect(() => onSessionEnded(() => { closeOperatorSocket(); store('signedIn', null); setMe(null); }), []);
  const needsSession = !found?.route.public;
  useEffect(() => {
    if (needsSession && me === null) navigate(`/ops/sign-in?next=${encodeURIComponent(pathname + search)}`, { replace: true });
  }, [needsSession, me, pathname]);

  let content;
  if (!found) content = <main id="main"><h1>404</h1><p>{NOT_FOUND[lang]}</p></main>;
  else if (found.route.public) content = <found.route.page params={found.params} />;
  else if (!me) content = <main id="main" aria-busy="true" />;
  else content = <Layout pathname={pathname}><found.route.page key={pathname} params={found.params} /></Layout>;
  return (
    <AppContext.Provider value={state}>
      <LangContext.Provider value={state.lang}>{content}</LangContext.Provider>
    </AppContext.Provider>
  );
}
