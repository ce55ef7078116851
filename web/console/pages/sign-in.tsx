import { useState } from 'preact/hooks';
import { dataOf } from '../../shared/api/errors.js';
import { request } from '../../shared/api/http.js';
import { useApp } from '../app-state.js';
import { graphql } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { navigate, type PageProps } from '../router.js';
import { ErrorNote } from '../../shared/ui/error-note.js';

const LOG_IN = graphql(`mutation ConsoleLogIn($input: LogInInput!) { logIn(input: $input) {
  __typename ... on MutationLogInSuccess { data { member { email role } } } ... on AppError { code message } } }`);

const STRINGS: Strings<'title' | 'merchant' | 'merchantHint' | 'email' | 'password' | 'submit' | 'busy'> = {
  es: { title: 'Iniciar sesión', merchant: 'ID del comercio', merchantHint: 'Empieza con m_ (viene en tu invitación).', email: 'Correo', password: 'Contraseña', submit: 'Entrar', busy: 'Entrando…' },
  en: { title: 'Sign in', merchant: 'Merchant ID', merchantHint: 'Starts with m_ (it is in your invitation).', email: 'Email', password: 'Password', submit: 'Sign in', busy: 'Signing in…' },
};

/** Where to go after signing in: ?next= when it is a console path, else the orders board. */
export function nextPath(): string {
  const next = new URLSearchParams(location.search).get('next') ?? '';
  return next.startsWith('/console') && !next.startsWith('/console/sign-in') ? next : '/console';
}

export function SignInPage(_props: PageProps) {
  const app = useApp();
  const t = useStrings(STRINGS);
  const remembered = new URLSearchParams(location.search);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const onSubmit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(null);
    try {
      const input = { merchantId: String(form.get('merchantId')).trim(), email: String(form.get('email')).trim(), password: String(form.get('password')) };
      dataOf((await request(LOG_IN, { input }, app.mode)).logIn);
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
        <label>{t.merchant}<input name="merchantId" required autocomplete="organization" defaultValue={remembered.get('merchant') ?? ''} aria-describedby="merchant-hint" /></label>
        <small id="merchant-hint">{t.merchantHint}</small>
        <label>{t.email}<input name="email" type="email" required autocomplete="username" defaultValue={remembered.get('email') ?? ''} /></label>
        <label>{t.password}<input name="password" type="password" required autocomplete="current-password" /></label>
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>{busy ? t.busy : t.submit}</button>
      </form>
    </main>
  );
}
