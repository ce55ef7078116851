import { useState } from 'preact/hooks';
import { dataOf, type ErrorWords } from '../../shared/api/errors.js';
import { operatorRequest } from '../../shared/api/http.js';
import { graphql } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useApp } from '../app-state.js';
import { navigate, type PageProps } from '../router.js';

const SIGN_IN = graphql(`mutation OpsSignIn($input: OperatorSignInInput!) { operatorSignIn(input: $input) {
  __typename ... on MutationOperatorSignInSuccess { data { operator { email role } } } ... on AppError { code message } } }`);

const STRINGS: Strings<'title' | 'email' | 'password' | 'submit' | 'busy'> = {
  es: { title: 'Operaciones: iniciar sesión', email: 'Correo', password: 'Contraseña', submit: 'Entrar', busy: 'Entrando…' },
  en: { title: 'Operations: sign in', email: 'Email', password: 'Password', submit: 'Sign in', busy: 'Signing in…' },
};
const WORDS: ErrorWords = { es: { INVALID_CREDENTIALS: 'Correo o contraseña incorrectos.' }, en: { INVALID_CREDENTIALS: 'Wrong email or password.' } };

/** Where to go after signing in: ?next= when it is an ops path, else the merchants. */
function nextPath(): string {
  const next = new URLSearchParams(location.search).get('next') ?? '';
  return next.startsWith('/ops') && !next.startsWith('/ops/sign-in') ? next : '/ops';
}

export function SignInPage(_props: PageProps) {
  const app = useApp();
  const t = useStrings(STRINGS);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const onSubmit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(null);
    try {
      dataOf((await operatorRequest(SIGN_IN, { input: { email: String(form.get('email')).trim(), password: String(form.get('password')) } })).operatorSignIn);
      await app.refreshMe();
      navigate(nextPath(), { replace: true });
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="narrow">
      <h1>{t.title}</h1>
      <form id="sign-in" class="card" onSubmit={(e) => void onSubmit(e)}>
        <label>{t.email}<input name="email" type="email" required autocomplete="username" defaultValue={new URLSearchParams(location.search).get('email') ?? ''} /></label>
        <label>{t.password}<input name="password" type="password" required autocomplete="current-password" /></label>
        <ErrorNote error={error} words={WORDS} />
        <button type="submit" disabled={busy}>{busy ? t.busy : t.submit}</button>
      </form>
    </main>
  );
}
