import { getNamedType, isEnumType, isInputObjectType, isListType, isNonNullType, isObjectType, isScalarType, isUnionType, type GraphQLField, type GraphQLInputType, type GraphQLSchema } from 'graphql';
import type { OperatorRole } from '../../src/domain/types.js';
import { api, type TestApp } from '../helpers/app.js';

export const PASSWORD = 'correct horse battery staple';
export const OPS_HEADERS = { 'x-graphql-csrf': '1', 'x-session-scope': 'operator' };

/** A GraphQL request as /ops sends it: the operator cookie, the CSRF header, the operator scope. */
export function gqlOps(t: TestApp, cookie: string | null, query: string, options: { variables?: Record<string, unknown>; headers?: Record<string, string>; scope?: boolean } = {}) {
  const headers: Record<string, string> = { 'x-graphql-csrf': '1', ...(options.scope !== false && { 'x-session-scope': 'operator' }), ...options.headers };
  if (cookie) headers.cookie = cookie;
  return api(`${t.url}/graphql`, { method: 'POST', headers, body: { query, variables: options.variables } });
}

export const tokenOf = (url: string) => new URL(url).hash.replace(/^#token=/, '');

export const SET_PASSWORD = `mutation ($input: OperatorSetPasswordInput!) { operatorSetPassword(input: $input) {
  __typename ... on MutationOperatorSetPasswordSuccess { data { email } } ... on AppError { code message } } }`;
export const SIGN_IN = `mutation ($input: OperatorSignInInput!) { operatorSignIn(input: $input) {
  __typename ... on MutationOperatorSignInSuccess { data { operator { id email role status } expiresAt } } ... on AppError { code message } } }`;
export const SIGN_OUT = 'mutation { operatorSignOut { __typename ... on MutationOperatorSignOutSuccess { data } ... on AppError { code } } }';
export const OPERATOR_ME = '{ operatorMe { id email role } }';

/** The `exd_ops_session=…` pair of a response's Set-Cookie. */
export function opsCookieFrom(headers: Headers): string | null {
  const set = headers.getSetCookie().find((c) => c.startsWith('exd_ops_session='));
  return set ? set.split(';', 1)[0]! : null;
}

/** Invites (as the CLI: audited with actor cli), returns the link's token. */
export async function inviteOperator(t: TestApp, email: string, role: OperatorRole): Promise<{ id: string; token: string }> {
  const invitation = await t.app.container.services.auditedAdmin.as({ kind: 'cli' }).inviteOperator({ input: { email, role } });
  return { id: invitation.operator.id, token: tokenOf(invitation.setPasswordUrl) };
}

export const signIn = (t: TestApp, email: string, password = PASSWORD, headers: Record<string, string> = {}) =>
  gqlOps(t, null, SIGN_IN, { variables: { input: { email, password } }, headers });

/** Invites, sets the password, signs in: the operator's id and cookie. */
export async function signedInOperator(t: TestApp, email: string, role: OperatorRole): Promise<{ id: string; cookie: string }> {
  const { id, token } = await inviteOperator(t, email, role);
  const set = await gqlOps(t, null, SET_PASSWORD, { variables: { input: { token, password: PASSWORD } } });
  if (set.body.data?.operatorSetPassword?.__typename !== 'MutationOperatorSetPasswordSuccess') throw new Error(`set password failed: ${JSON.stringify(set.body)}`);
  const res = await signIn(t, email);
  const cookie = opsCookieFrom(res.headers);
  if (!cookie) throw new Error(`sign-in failed: ${JSON.stringify(res.body)}`);
  return { id, cookie };
}

/** A placeholder value of an argument's type (valid GraphQL; usually refused by the domain, which is fine). */
function placeholder(type: GraphQLInputType): unknown {
  if (isNonNullType(type)) return placeholder(type.ofType);
  if (isListType(type)) return [placeholder(type.ofType)];
  if (isEnumType(type)) return type.getValues()[0]!.value;
  if (isInputObjectType(type)) return Object.fromEntries(Object.values(type.getFields()).map((f) => [f.name, placeholder(f.type)]));
  if (isScalarType(type)) {
    if (type.name === 'Int' || type.name === 'Float') return 1;
    if (type.name === 'Boolean') return true;
    if (type.name === 'DateTime') return '2026-01-01T00:00:00.000Z';
    return 'x_placeholder';
  }
  return null;
}

/**
 * One operation calling the field with placeholder arguments (as variables), selecting only
 * `__typename` and, for typed results, the AppError's code.
 */
export function operationFor(schema: GraphQLSchema, kind: 'query' | 'mutation', field: GraphQLField<unknown, unknown>) {
  const variables: Record<string, unknown> = {};
  const defs: string[] = [];
  const args: string[] = [];
  for (const arg of field.args) {
    variables[arg.name] = placeholder(arg.type);
    defs.push(`$${arg.name}: ${arg.type.toString()}`);
    args.push(`${arg.name}: $${arg.name}`);
  }
  const named = getNamedType(field.type);
  const selection = isUnionType(named) ? '{ __typename ... on AppError { code } }' : isObjectType(named) ? '{ __typename }' : '';
  const query = `${kind}${defs.length ? `(${defs.join(', ')})` : ''} { ${field.name}${args.length ? `(${args.join(', ')})` : ''} ${selection} }`;
  return { query, variables };
}

/** The error code of an answer for one field: a typed AppError result or the first GraphQL error; null when it succeeded. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON
export function codeOf(body: any, field: string): string | null {
  const result = body?.data?.[field];
  if (result && typeof result === 'object' && result.__typename === 'AppError') return result.code as string;
  const error = body?.errors?.[0];
  if (error) return (error.extensions?.code as string | undefined) ?? `UNCODED: ${error.message}`;
  return null;
}
