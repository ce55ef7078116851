import { useState } from 'preact/hooks';
import { dataOf } from '../../shared/api/errors.js';
import { request } from '../../shared/api/http.js';
import { closeSocket } from '../../shared/api/socket.js';
import { useApp } from '../app-state.js';
import { graphql } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { navigate, type PageProps } from '../router.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { nextPathWithin, SignInForm } from '../../shared/ui/sign-in-form.js';

const LOG_IN = graphql(`mutation ConsoleLogIn($input: LogInInput!) { logIn(input: $input) {
  __typename ... on MutationLogInSuccess { data { merchant { id } memberships { merchant { id name } member { role } } } }
  ... on AppError { code message fields { field message } } } }`);

const STRINGS: Strings<'title' | 'choose' | 'chooseHint' | 'role_owner' | 'role_dispatcher' | 'role_viewer'> = {
  es: { title: 'Iniciar sesión', choose: 'Elige el comercio', chooseHint: 'Tu correo pertenece a varios comercios.', role_owner: 'dueño', role_dispatcher: 'despachador', role_viewer: 'lector' },
  en: { title: 'Sign in', choose: 'Choose the merchant', chooseHint: 'Your email belongs to several merchants.', role_owner: 'owner', role_dispatcher: 'dispatcher', role_viewer: 'viewer' },
};

type Membership = { merchant: { id: string; name: string }; member: { role: 'owner' | 'dispatcher' | 'viewer' } };

/** Where to go after signing in: ?next= when it is a console path, else the orders board. */
const nextPath = () => nextPathWithin('/console');

/**
 * Email and password only: the session opens in the oldest merchant they open; with several, the
 * person chooses, and choosing another signs in again with its id (the password is kept only here).
 */
export function SignInPage(_props: PageProps) {
  const app = useApp();
  const t = useStrings(STRINGS);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [choice, setChoice] = useState<{ email: string; password: string; current: string; memberships: Membership[] } | null>(null);

  const signIn = async (input: { email: string; password: string; merchantId?: string }) => {
    setBusy(true);
    setError(null);
    try {
      const signedIn = dataOf((await request(LOG_IN, { input }, app.mode)).logIn);
      if (!input.merchantId && signedIn.memberships.length > 1) {
        return setChoice({ email: input.email, password: input.password, current: signedIn.merchant.id, memberships: signedIn.memberships });
      }
      closeSocket();
      await app.refreshMe();
      navigate(nextPath(), { replace: true });
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const choose = async (merchantId: string) => {
    if (!choice) return;
    if (merchantId !== choice.current) return signIn({ email: choice.email, password: choice.password, merchantId });
    await app.refreshMe();
    navigate(nextPath(), { replace: true });
  };

  return (
    <main id="main" class="narrow">
      <h1>{choice ? t.choose : t.title}</h1>
      {choice ? (
        <section id="merchant-choice" class="card" aria-describedby="choice-hint">
          <p id="choice-hint">{t.chooseHint}</p>
          <ul class="choices">
            {choice.memberships.map((m) => (
              <li key={m.merchant.id}>
                <button type="button" data-merchant-id={m.merchant.id} disabled={busy} onClick={() => void choose(m.merchant.id)}>
                  {m.merchant.name} ({t[`role_${m.member.role}`]})
                </button>
              </li>
            ))}
          </ul>
          <ErrorNote error={error} />
        </section>
      ) : (
        <SignInForm busy={busy} error={error} onSignIn={(input) => void signIn(input)} />
      )}
    </main>
  );
}
