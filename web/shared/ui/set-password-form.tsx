import { useState } from 'preact/hooks';
import { ApiError } from '../api/errors.js';
import { useStrings, type Strings } from '../i18n.js';
import { navigate } from '../router.js';
import { ErrorNote } from './error-note.js';

const STRINGS: Strings<'title' | 'intro' | 'password' | 'repeat' | 'rule' | 'mismatch' | 'noToken' | 'submit'> = {
  es: { title: 'Elige tu contraseña', intro: 'Este enlace sirve una sola vez.', password: 'Contraseña nueva', repeat: 'Repite la contraseña', rule: 'Entre 12 y 256 caracteres.', mismatch: 'Las contraseñas no coinciden.', noToken: 'Al enlace le falta su código: ábrelo tal como llegó.', submit: 'Guardar y continuar' },
  en: { title: 'Choose your password', intro: 'This link works once.', password: 'New password', repeat: 'Repeat the password', rule: 'From 12 to 256 characters.', mismatch: 'The passwords differ.', noToken: 'The link has lost its code: open it as it came.', submit: 'Save and continue' },
};

/** The invitation link's token is in the fragment (#token=pt_…): no server or proxy log sees it. */
const tokenOf = () => new URLSearchParams(location.hash.slice(1)).get('token') ?? '';

/**
 * The page an invitation or reset link opens, in the merchant console and in /ops alike: the new
 * password twice, set with the link's token, then the app's sign-in with the email filled in.
 */
export function SetPasswordForm(props: { setPassword: (input: { token: string; password: string }) => Promise<{ email: string }>; signInPath: string }) {
  const t = useStrings(STRINGS);
  const [token] = useState(tokenOf);
  const [error, setError] = useState<unknown>(token ? null : new ApiError('PASSWORD_TOKEN_INVALID', t.noToken));

  const onSubmit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const password = String(form.get('password'));
    if (password !== String(form.get('repeat'))) return setError(new ApiError('VALIDATION_ERROR', t.mismatch));
    try {
      const set = await props.setPassword({ token, password });
      // The token has done its work: drop it from the address bar and history.
      navigate(`${props.signInPath}?${new URLSearchParams({ email: set.email })}`, { replace: true });
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <main id="main" class="narrow">
      <h1>{t.title}</h1>
      <form id="set-password" class="card" onSubmit={(e) => void onSubmit(e)}>
        <p>{t.intro}</p>
        <label>{t.password}<input name="password" type="password" required minLength={12} maxLength={256} autocomplete="new-password" aria-describedby="password-rule" /></label>
        <small id="password-rule">{t.rule}</small>
        <label>{t.repeat}<input name="repeat" type="password" required minLength={12} maxLength={256} autocomplete="new-password" /></label>
        <ErrorNote error={error} />
        <button type="submit" disabled={!token}>{t.submit}</button>
      </form>
    </main>
  );
}
