import type { MemberRole } from '../../src/domain/types.js';
import { api, type TestApp } from '../helpers/app.js';

export const PASSWORD = 'correct horse battery staple';
export const CSRF = { 'x-graphql-csrf': '1' };

/** A GraphQL request as the console sends it: the session cookie, the CSRF header, the mode. */
export function gqlAs(
  t: TestApp,
  cookie: string | null,
  query: string,
  options: { variables?: Record<string, unknown>; mode?: 'live' | 'test'; csrf?: boolean; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...options.headers };
  if (cookie) headers.cookie = cookie;
  if (options.csrf !== false) Object.assign(headers, CSRF);
  if (options.mode) headers['x-mode'] = options.mode;
  return api(`${t.url}/graphql`, { method: 'POST', headers, body: { query, variables: options.variables } });
}

/** The token of a set-password link (it travels in the URL fragment). */
export const tokenOf = (url: string) => new URL(url).hash.replace(/^#token=/, '');

/** Invites through the admin path (as the CLI does) and returns the link's token. */
export async function invite(t: TestApp, merchantId: string, email: string, role: MemberRole): Promise<string> {
  const invitation = await t.app.container.services.members.adminInviteMember({ input: { merchantId, email, role } });
  return tokenOf(invitation.setPasswordUrl);
}

export const SET_PASSWORD = `mutation ($input: SetPasswordInput!) { setPassword(input: $input) {
  __typename ... on MutationSetPasswordSuccess { data { merchantId email } } ... on AppError { code message fields { field message } } } }`;

export const LOG_IN = `mutation ($input: LogInInput!) { logIn(input: $input) {
  __typename ... on MutationLogInSuccess { data { member { id email role status } expiresAt } } ... on AppError { code message } } }`;

export const LOG_OUT = 'mutation { logOut { __typename ... on MutationLogOutSuccess { data } ... on AppError { code message } } }';

export const ME = '{ me { role mode member { id email role status } merchant { id name } } }';

/** The `exd_session=…` pair of a response's Set-Cookie, for the next requests. */
export function cookieFrom(headers: Headers): string | null {
  const set = headers.getSetCookie().find((c) => c.startsWith('exd_session='));
  return set ? set.split(';', 1)[0]! : null;
}

export async function logIn(t: TestApp, merchantId: string, email: string, password = PASSWORD) {
  return gqlAs(t, null, LOG_IN, { variables: { input: { merchantId, email, password } } });
}

/** Invites, sets the password and signs in: the member's cookie. */
export async function signedIn(t: TestApp, merchantId: string, email: string, role: MemberRole): Promise<string> {
  const token = await invite(t, merchantId, email, role);
  const set = await gqlAs(t, null, SET_PASSWORD, { variables: { input: { token, password: PASSWORD } } });
  if (set.body.data?.setPassword?.__typename !== 'MutationSetPasswordSuccess') throw new Error(`setPassword failed: ${JSON.stringify(set.body)}`);
  const res = await logIn(t, merchantId, email);
  const cookie = cookieFrom(res.headers);
  if (!cookie) throw new Error(`logIn failed: ${JSON.stringify(res.body)}`);
  return cookie;
}
