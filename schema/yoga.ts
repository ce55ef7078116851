import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GraphQLError, type GraphQLErrorOptions } from 'graphql';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Edge } from '../src/edge/edge.js';
import { isUnavailable } from '../src/ports/unavailable.js';
import { AppError, ERROR_STATUS, isAppError } from '../src/domain/errors.js';
import { RateLimitedError, type Credentials } from '../src/domain/front-door.js';
import { rateLimitHeaders, tokenOfHeaders } from '../src/edge/door.js';
import { CSRF_HEADER } from '../src/edge/session-cookie.js';
import { graphiqlOptions, renderGraphiQLPage } from '../src/edge/graphiql.js';
import { contextFor, type BrowserSession, type DoorEntry, type GraphQLContext } from './context.js';
import { OPERATOR_COOKIE, sessionCookies } from '../src/edge/session-cookie.js';
import { createParseCache, useValidationCache } from './parse-cache.js';
import { useSessionGuard } from './session-guard.js';
import { useSharedAnonymousEvents } from './shared-execution.js';
import { useCompiledQueries } from './compiled-queries.js';
import { graphqlHttpHardening } from './http.js';
import { buildSchema } from './index.js';

/**
 * What a client sees of an error (HTTP and graphql-ws alike): AppErrors with their code, an
 * unreachable store as SERVICE_UNAVAILABLE, GraphQL's own validation errors as they are, and
 * anything else as a bare INTERNAL_ERROR (details only in the log).
 */
export function maskGraphQLError(error: unknown, edge: Edge): GraphQLError {
  const source = error instanceof GraphQLError ? error : undefined;
  const original = source && causeOf(source);
  const at = source ? { path: source.path, nodes: source.nodes } : {};
  if (isAppError(original)) return toGraphQLError(original, undefined, at);
  if (isAppError(error)) return toGraphQLError(error);
  if (isUnavailable(original)) return toGraphQLError(new AppError('SERVICE_UNAVAILABLE', 'A backing service is unavailable; retry shortly'), undefined, at);
  // GraphQL's own errors (a variable of the wrong type, say) are the client's, shown as they are.
  if (source && (!original || original instanceof GraphQLError)) return source;
  edge.logger.error({ err: original ?? error }, 'graphql resolver failed');
  return new GraphQLError('Unexpected error.', { extensions: { code: 'INTERNAL_ERROR' }, ...at });
}

/** The innermost cause: graphql-js wraps a scalar's error once per level (variable coercion: twice). */
function causeOf(error: GraphQLError): unknown {
  let cause: unknown = error.originalError;
  while (cause instanceof GraphQLError && cause.originalError) cause = cause.originalError;
  return cause;
}

/** What the node adapter hands Yoga beside the request (absent when Yoga is called through fetch). */
export interface NodeServerContext {
  req?: IncomingMessage;
  res?: ServerResponse;
}

export type GraphQLServer = YogaServerInstance<NodeServerContext, GraphQLContext>;

export function toGraphQLError(
  error: AppError,
  headers?: Record<string, string>,
  at: Pick<GraphQLErrorOptions, 'path' | 'nodes'> = {},
): GraphQLError {
  return new GraphQLError(error.message, {
    extensions: {
      code: error.code,
      http: { status: ERROR_STATUS[error.code], ...(headers && { headers }) },
      ...(error.fields && { fields: error.fields }),
    },
    ...at,
  });
}

/** A front-door refusal as GraphQL errors (RATE_LIMITED with its headers, 401s, lockouts). */
export function refusalOf(error: AppError): GraphQLError {
  return toGraphQLError(error, error instanceof RateLimitedError ? rateLimitHeaders(error.decision) : undefined);
}

/**
 * The front door for GraphQL over HTTP, before Yoga parses anything: every request is identified
 * and takes one operation from its caller's budget (anonymous ones from their address's).
 */
function useFrontDoor(edge: Edge): Plugin<Record<string, unknown>, NodeServerContext> {
  const { door } = edge;
  return {
    async onParams({ request, context, setResult }) {
      const { req, res } = context;
      let credentials: Credentials = req
        ? door.browserCredentialsOf(req)
        : Object.assign(tokenOfHeaders(request.headers.get('authorization'), request.headers.get('x-api-key')), { testMode: request.headers.get('x-test-mode') ?? undefined, address: 'unknown' });
      // Only callers without a key are browsers (the console): API-key requests skip the cookie work.
      const browser = req && res && !credentials.token ? browserSession(edge, req, res, credentials) : undefined;
      try {
        // The session cookie rides on every request the browser sends, cross-site forms and links
        // included: it authenticates only a request that also carries the CSRF header.
        if (browser && (credentials.session || credentials.operatorSession) && !browser.csrfChecked) {
          throw new AppError('CSRF_REQUIRED', `A request signed in with the session cookie must send the ${CSRF_HEADER} header`);
        }
        let entered;
        try {
          entered = await door.frontDoor.enter(credentials);
        } catch (error) {
          if (!browser || !isAppError(error) || error.code !== 'INVALID_SESSION') throw error;
          // An ended session: the request goes on as anonymous (the console can sign in again) and the cookie is cleared.
          browser.sessionRejected = true;
          if (credentials.operatorSession) browser.setOperatorSession(null);
          else browser.setSession(null);
          credentials = { address: credentials.address };
          entered = await door.frontDoor.enter(credentials);
        }
        const { caller, decision } = entered;
        // On the request's own context object (Yoga builds the GraphQL context from it): no WeakMap by request.
        (context as { doorEntry?: DoorEntry }).doorEntry = { caller, decision, credentials, ...(browser && { browser }) };
        // Straight on the node response: Yoga's own header merge costs more.
        if (decision && context.res) {
          const headers = rateLimitHeaders(decision);
          for (const name in headers) context.res.setHeader(name, headers[name]!);
        }
      } catch (error) {
        if (!isAppError(error)) throw error;
        setResult({ errors: [refusalOf(error)] });
      }
    },
  };
}

/** The request's cookie and CSRF header, and the way to set the cookie on its response. */
function browserSession(edge: Edge, req: IncomingMessage, res: ServerResponse, credentials: Credentials): BrowserSession {
  const secure = edge.door.overTls(req);
  return {
    csrfChecked: edge.door.hasCsrfHeader(req),
    sessionId: credentials.session,
    operatorSessionId: credentials.operatorSession,
    sessionRejected: false,
    setSession: (session) => void res.appendHeader('Set-Cookie', sessionCookies({ sessionId: session?.sessionId ?? null, expiresAt: session?.expiresAt, secure })),
    setOperatorSession: (session) =>
      void res.appendHeader('Set-Cookie', sessionCookies({ sessionId: session?.sessionId ?? null, expiresAt: session?.expiresAt, secure, cookie: OPERATOR_COOKIE })),
  };
}

/** `onCompile`: called each time graphql-jit compiles a document (the app counts them in its metrics). */
export function createGraphQLServer(edge: Edge, options: { onCompile?: () => void } = {}): GraphQLServer {
  return createYoga<NodeServerContext, GraphQLContext>({
    schema: buildSchema(),
    graphqlEndpoint: '/graphql',
    landingPage: false,
    // Callers authenticate with a header, never a cookie: cross-origin calls need no credentials mode.
    cors: { credentials: false },
    // Served from this server's files with example tabs (src/edge/graphiql.ts): never a CDN.
    graphiql: graphiqlOptions('Express Delivery GraphQL'),
    renderGraphiQL: renderGraphiQLPage,
    logging: false,
    // serveGraphQLHttp (schema/http.ts) enforces GRAPHQL_BODY_LIMIT before Yoga sees the request.
    maxRequestBodySize: false,
    parserAndValidationCache: createParseCache(),
    // The door entry: from the front door (HTTP) or from graphql-ws's getEnveloped call.
    context: (initial) => contextFor(edge, (initial as { doorEntry?: DoorEntry }).doorEntry!),
    maskedErrors: { maskError: (error) => maskGraphQLError(error, edge) },
    plugins: [
      EnvelopArmorPlugin({
        maxDepth: { n: 10 },
        // Counts list sizes (first: N): 100 orders with their driver and events is about 14,000.
        costLimit: { maxCost: 20_000, flattenFragments: true },
        maxAliases: { n: 15 },
        maxDirectives: { n: 20 },
        maxTokens: { n: 2000 },
      }),
      useFrontDoor(edge),
      useValidationCache(),
      graphqlHttpHardening(),
      useSessionGuard(edge.door),
      useSharedAnonymousEvents(),
      useCompiledQueries({ logger: edge.logger, onCompile: options.onCompile }),
    ],
  });
}
