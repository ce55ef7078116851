import { print } from '@0no-co/graphql.web';
import { createClient, type Client } from 'graphql-ws';
import type { ResultOf, TadaDocumentNode, VariablesOf } from '../graphql.js';
import type { Mode } from './http.js';

/** 4401/4403: the server closed the socket for the credential (signed out, removed, role changed). */
const endedBySession = (event: unknown) => event instanceof CloseEvent && (event.code === 4401 || event.code === 4403);

let current: { mode: Mode; client: Client } | null = null;
let signedOut: () => void = () => undefined;

/** connecting: first connection of this socket; reconnecting: it was live and dropped (retrying). */
export type SocketState = 'connecting' | 'live' | 'reconnecting';
let state: SocketState = 'connecting';
const listeners = new Set<(state: SocketState) => void>();
function setState(next: SocketState): void {
  state = next;
  for (const listener of listeners) listener(next);
}
export function onSocketState(listener: (state: SocketState) => void): () => void {
  listeners.add(listener);
  listener(state);
  return () => listeners.delete(listener);
}

export function onSocketSignedOut(handler: () => void): void {
  signedOut = handler;
}

/**
 * One graphql-ws socket per mode (the server fixes the mode at connection_init); the session cookie
 * goes with the same-origin upgrade. Switching mode closes the old socket: never two modes at once.
 */
function socketFor(mode: Mode): Client {
  if (current?.mode === mode) return current.client;
  closeSocket();
  const client = createClient({
    url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
    connectionParams: { mode },
    lazy: true,
    retryAttempts: Infinity,
    shouldRetry: (event) => !endedBySession(event),
    on: {
      connected: () => setState('live'),
      closed: (event) => (endedBySession(event) ? signedOut() : setState(state === 'connecting' ? 'connecting' : 'reconnecting')),
    },
  });
  current = { mode, client };
  return client;
}

export function closeSocket(): void {
  void current?.client.dispose();
  current = null;
  setState('connecting');
}

/** Subscribes until the returned function is called; resubscribes by itself after a reconnect. */
export function subscribe<D extends TadaDocumentNode<unknown, never>>(
  document: D,
  variables: VariablesOf<D>,
  mode: Mode,
  onData: (data: ResultOf<D>) => void,
): () => void {
  return socketFor(mode).subscribe<ResultOf<D>>(
    { query: print(document), variables: variables as Record<string, unknown> },
    { next: (result) => result.data && onData(result.data), error: () => undefined, complete: () => undefined },
  );
}

let operatorClient: Client | null = null;

/**
 * As an operator (the ops app): its own socket, scope `operator` at connection_init (the server
 * reads the operator cookie only then); both modes on one socket, the fleet filters by argument.
 */
export function operatorSubscribe<D extends TadaDocumentNode<unknown, never>>(
  document: D,
  variables: VariablesOf<D>,
  onData: (data: ResultOf<D>) => void,
): () => void {
  operatorClient ??= createClient({
    url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
    connectionParams: { scope: 'operator' },
    lazy: true,
    retryAttempts: Infinity,
    shouldRetry: (event) => !endedBySession(event),
  });
  return operatorClient.subscribe<ResultOf<D>>(
    { query: print(document), variables: variables as Record<string, unknown> },
    { next: (result) => result.data && onData(result.data), error: () => undefined, complete: () => undefined },
  );
}

/** On sign-out: the next operator's subscriptions open a socket of their own. */
export function closeOperatorSocket(): void {
  void operatorClient?.dispose();
  operatorClient = null;
}
