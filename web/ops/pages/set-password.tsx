import { dataOf } from '../../shared/api/errors.js';
import { operatorRequest } from '../../shared/api/http.js';
import { graphql } from '../../shared/graphql.js';
import { SetPasswordForm } from '../../shared/ui/set-password-form.js';
import type { PageProps } from '../router.js';

const SET_PASSWORD = graphql(`mutation OpsSetPassword($input: OperatorSetPasswordInput!) { operatorSetPassword(input: $input) {
  __typename ... on MutationOperatorSetPasswordSuccess { data { email } } ... on AppError { code message } } }`);

export function SetPasswordPage(_props: PageProps) {
  const setPassword = async (input: { token: string; password: string }) => dataOf((await operatorRequest(SET_PASSWORD, { input })).operatorSetPassword);
  return <SetPasswordForm setPassword={setPassword} signInPath="/ops/sign-in" />;
}
