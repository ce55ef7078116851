import { dataOf } from '../../shared/api/errors.js';
import { request } from '../../shared/api/http.js';
import { graphql } from '../../shared/graphql.js';
import { SetPasswordForm } from '../../shared/ui/set-password-form.js';
import { useApp } from '../app-state.js';
import type { PageProps } from '../router.js';

const SET_PASSWORD = graphql(`mutation ConsoleSetPassword($input: SetPasswordInput!) { setPassword(input: $input) {
  __typename ... on MutationSetPasswordSuccess { data { merchantId email } } ... on AppError { code message } } }`);

export function SetPasswordPage(_props: PageProps) {
  const app = useApp();
  const setPassword = async (input: { token: string; password: string }) => dataOf((await request(SET_PASSWORD, { input }, app.mode)).setPassword);
  return <SetPasswordForm setPassword={setPassword} signInPath="/console/sign-in" />;
}
