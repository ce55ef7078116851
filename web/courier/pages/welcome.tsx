import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../shared/api/errors.js';
import type { Lang } from '../../shared/i18n.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { courierApi } from '../api.js';
import { LangSwitch } from '../ui/lang-switch.js';
import { COURIER_ERRORS } from '../words.js';

const S: Strings<'title' | 'signingIn' | 'noCode' | 'ask'> = {
  es: { title: 'Bienvenido', signingIn: 'Iniciando tu sesión…', noCode: 'Este enlace no trae un código de acceso.', ask: 'Pide a tu central un enlace de acceso nuevo y ábrelo en este teléfono.' },
  en: { title: 'Welcome', signingIn: 'Signing you in…', noCode: 'This link carries no sign-in code.', ask: 'Ask your dispatcher for a new sign-in link and open it on this phone.' },
};

/**
 * /courier/welcome#code=…: the one-time code leaves the address bar at once (it is in the
 * fragment, never sent to the server with the page), is exchanged for the session cookie, and the
 * courier lands on the home screen.
 */
export function WelcomePage({ setLang, onSignedIn }: { setLang: (lang: Lang) => void; onSignedIn: () => void }) {
  const t = useStrings(S);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const code = new URLSearchParams(location.hash.slice(1)).get('code');
    history.replaceState(null, '', '/courier/welcome');
    if (!code) {
      setError(new ApiError('SIGN_IN_LINK_INVALID', 'No code'));
      return;
    }
    courierApi.signIn(code).then(
      () => {
        history.replaceState(null, '', '/courier');
        onSignedIn();
      },
      setError,
    );
  }, []);
  return (
    <main id="main" class="narrow" aria-busy={!error}>
      <div class="bar"><LangSwitch setLang={setLang} /></div>
      <h1>{t.title}</h1>
      {error ? <><ErrorNote id="welcome-error" error={error} words={COURIER_ERRORS} /><p>{t.ask}</p></> : <p role="status">{t.signingIn}</p>}
    </main>
  );
}
