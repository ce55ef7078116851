import { print } from '@0no-co/graphql.web';
import type { ResultOf, TadaDocumentNode, VariablesOf } from '../graphql.js';
import { ApiError, refusal } from './errors.js';

export type Mode = 'live' | 'test';

interface GraphQLResponse { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] }

/**
 * One GraphQL operation over HTTP as a signed-in member: the session cookie (same origin), the
 * CSRF header every cookie request needs, and the mode of this request.
 */
export function request<D extends TadaDocumentNode<unknown, never>>(document: D, variables: VariablesOf<D>, mode: Mode): Promise<ResultOf<D>> {
  return post(document, variables, { 'x-mode': mode });
}

/** As an operator (the ops app): the operator cookie is read only with this scope header. */
export function operatorRequest<D extends TadaDocumentNode<unknown, never>>(document: D, variables: VariablesOf<D>): Promise<ResultOf<D>> {
  return post(document, variables, { 'x-session-scope': 'operator' });
}

async function post<D extends TadaDocumentNode<unknown, never>>(document: D, variables: VariablesOf<D>, scope: Record<string, string>): Promise<ResultOf<D>> {
  const response = await fetch('/graphql', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'x-graphql-csrf': '1', ...scope },
    body: JSON.stringify({ query: print(document), variables }),
  });
  const body = (await response.json().catch(() => ({}))) as GraphQLResponse;
  const first = body.errors?.[0];
  if (first) throw refusal(first.extensions?.code ?? 'INTERNAL_ERROR', first.message);
  if (!response.ok || body.data == null) throw new ApiError('INTERNAL_ERROR', `HTTP ${response.status}`);
  return body.data as ResultOf<D>;
}
