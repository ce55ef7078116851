import { createClient, type Client, type FormattedExecutionResult } from 'graphql-ws';
import { WebSocket } from 'ws';

/** Documents an attacker sends: each is refused by a parse or validation limit over HTTP. */
export const HOSTILE_DOCUMENTS = {
  /** 3,000 aliases of one field. */
  aliases: `{ ${Array.from({ length: 3000 }, (_, i) => `a${i}: __typename`).join(' ')} }`,
  /** 60 levels of nested fragments on the Query type. */
  nestedFragments: (() => {
    const levels = 60;
    const fragments = Array.from({ length: levels }, (_, i) =>
      i === levels - 1 ? `fragment F${i} on Query { __typename }` : `fragment F${i} on Query { viewer { merchant { id } } ...F${i + 1} }`,
    );
    return `query Deep { ...F0 } ${fragments.join(' ')}`;
  })(),
  /** 60 levels of selection depth through a self-referencing path. */
  deepSelection: `{ ${'__schema { types { fields { type { ofType { '.repeat(12)}name${' } } } } }'.repeat(12)} }`,
};

export interface WsOutcome {
  results: FormattedExecutionResult<Record<string, unknown>, unknown>[];
  errors: Array<{ message: string; extensions?: { code?: string } }>;
  closed: { code: number; reason: string } | null;
}

/** A graphql-ws client that records what each operation got and how its socket closed. */
export function wsClient(baseUrl: string, connectionParams?: Record<string, unknown>, headers?: Record<string, string>) {
  let closed: { code: number; reason: string } | null = null;
  const client: Client = createClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: headers
      ? class extends WebSocket {
          constructor(url: string, protocols?: string | string[]) {
            super(url, protocols, { headers });
          }
        }
      : WebSocket,
    ...(connectionParams && { connectionParams }),
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => {},
    on: { closed: (event) => void (closed = { code: (event as CloseEvent).code, reason: (event as CloseEvent).reason }) },
  });
  return {
    client,
    closed: () => closed,
    /** Starts an operation; the outcome fills in as results, errors and the close arrive. */
    start(query: string, variables?: Record<string, unknown>) {
      const outcome: WsOutcome & { done: boolean } = { results: [], errors: [], closed: null, done: false };
      client.subscribe(
        { query, ...(variables && { variables }) },
        {
          next: (result) => void outcome.results.push(result),
          error: (error) => {
            if (Array.isArray(error)) outcome.errors.push(...(error as WsOutcome['errors']));
            else outcome.closed = closed ?? { code: (error as CloseEvent).code ?? 0, reason: String((error as CloseEvent).reason ?? error) };
            outcome.done = true;
          },
          complete: () => void (outcome.done = true),
        },
      );
      return outcome;
    },
    /** Runs one operation to its end (a query or mutation). */
    run(query: string, variables?: Record<string, unknown>): Promise<WsOutcome> {
      return new Promise((resolve) => {
        const outcome: WsOutcome = { results: [], errors: [], closed: null };
        client.subscribe(
          { query, ...(variables && { variables }) },
          {
            next: (result) => void outcome.results.push(result),
            error: (error) => {
              if (Array.isArray(error)) outcome.errors.push(...(error as WsOutcome['errors']));
              else outcome.closed = closed ?? { code: (error as CloseEvent).code ?? 0, reason: String((error as CloseEvent).reason ?? '') };
              resolve(outcome);
            },
            complete: () => resolve(outcome),
          },
        );
      });
    },
    dispose: () => client.dispose(),
  };
}

/** The error codes of a GraphQL answer, whichever way they came (errors array or result errors). */
export function codesOf(outcome: { errors?: WsOutcome['errors']; results?: FormattedExecutionResult<Record<string, unknown>, unknown>[] } | { errors?: Array<{ extensions?: { code?: string } }> }): string[] {
  const errors = [...((outcome as WsOutcome).errors ?? []), ...((outcome as WsOutcome).results ?? []).flatMap((r) => (r.errors ?? []) as WsOutcome['errors'])];
  return errors.map((e) => e.extensions?.code ?? e.message);
}
