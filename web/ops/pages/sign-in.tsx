import { useState } from 'preact/hooks';
import { dataOf, type ErrorWords } from '../../shared/api/errors.js';
import { operatorRequest } from '../../shared/api/http.js';
import { graphql } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { nextPathWithin, SignInForm } from '../../shared/ui/sign-in-form.js';
import { useApp } from '../app-state.js';
import { navigate, type PageProps } from '../router.js';

const SIGN_IN = graphql(`mutation OpsSignIn($input: OperatorSignInInput!) { operatorSignIn(input: $input) {
  __typename ... on MutationOperatorSignInSuccess { data { operator { email role } } } ... on AppError { code message } } }`);

const STRINGS: Strings<'title'> = { es: { title: 'Operaciones: iniciar sesión' }, en: { title: 'Operations: sign in' } };
const WORDS: ErrorWords = { es: { INVALID_CREDENTIALS: 'Correo o contraseña incorrectos.' }, en: { INVALID_CREDENTIALS: 'Wrong email or password.' } };

export function SignInPage(_props: PageProps) {
  const app = useApp();
  const t = useStrings(STRINGS);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const signIn = async (input: { email: string; password: string }) => {
    setBusy(true);
    setError(null);
    try {
      dataOf((await operatorRequest(SIGN_IN, { input })).operatorSignIn);
      await app.refreshMe();
      navigate(nextPathWithin('/ops'), { replace: true });
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="narrow">
      <h1>{t.title}</h1>
      <SignInForm busy={busy} error={error} words={WORDS} onSignIn={(input) => void signIn(input)} />
    </main>
  );
}
