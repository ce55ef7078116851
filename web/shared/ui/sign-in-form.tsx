import type { ErrorWords } from '../api/errors.js';
import { useStrings, type Strings } from '../i18n.js';
import { ErrorNote } from './error-note.js';

const STRINGS: Strings<'email' | 'password' | 'submit' | 'busy'> = {
  es: { email: 'Correo', password: 'Contraseña', submit: 'Entrar', busy: 'Entrando…' },
  en: { email: 'Email', password: 'Password', submit: 'Sign in', busy: 'Signing in…' },
};

/** Where to go after signing in: ?next= when it is a path of this app (not its sign-in), else the app's home. */
export function nextPathWithin(home: string): string {
  const next = new URLSearchParams(location.search).get('next') ?? '';
  return next.startsWith(home) && !next.startsWith(`${home}/sign-in`) ? next : home;
}

/** The email and password form of the console's and /ops' sign-in pages; ?email= fills the email in. */
export function SignInForm(props: { busy: boolean; error: unknown; words?: ErrorWords; onSignIn: (input: { email: string; password: string }) => void }) {
  const t = useStrings(STRINGS);
  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    props.onSignIn({ email: String(form.get('email')).trim(), password: String(form.get('password')) });
  };
  return (
    <form id="sign-in" class="card" onSubmit={onSubmit}>
      <label>{t.email}<input name="email" type="email" required autocomplete="username" defaultValue={new URLSearchParams(location.search).get('email') ?? ''} /></label>
      <label>{t.password}<input name="password" type="password" required autocomplete="current-password" /></label>
      <ErrorNote error={props.error} {...(props.words && { words: props.words })} />
      <button type="submit" disabled={props.busy}>{props.busy ? t.busy : t.submit}</button>
    </form>
  );
}
