import type { Lang } from '../../shared/i18n.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { LangSwitch } from '../ui/lang-switch.js';

const S: Strings<'title' | 'body' | 'offlineTitle' | 'offlineBody' | 'retry'> = {
  es: {
    title: 'Sesión cerrada',
    body: 'Para entrar, abre en este teléfono el enlace de acceso que te envió tu central. Si no lo tienes o venció, pide uno nuevo.',
    offlineTitle: 'Sin conexión',
    offlineBody: 'No se pudo contactar al servicio. Revisa tu señal e inténtalo de nuevo.',
    retry: 'Reintentar',
  },
  en: {
    title: 'Signed out',
    body: 'To sign in, open on this phone the sign-in link your dispatcher sent you. If you do not have one or it expired, ask for a new one.',
    offlineTitle: 'No connection',
    offlineBody: 'The service could not be reached. Check your signal and try again.',
    retry: 'Try again',
  },
};

export function SignedOutPage({ setLang, unreachable, onRetry }: { setLang: (lang: Lang) => void; unreachable?: boolean; onRetry?: () => void }) {
  const t = useStrings(S);
  return (
    <main id="main" class="narrow" data-screen={unreachable ? 'unreachable' : 'signed-out'}>
      <div class="bar"><LangSwitch setLang={setLang} /></div>
      <h1 id="signed-out">{unreachable ? t.offlineTitle : t.title}</h1>
      <p>{unreachable ? t.offlineBody : t.body}</p>
      {unreachable && <button type="button" onClick={onRetry}>{t.retry}</button>}
    </main>
  );
}
