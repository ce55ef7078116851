import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GraphQLError, type GraphQLErrorOptions } from 'graphql';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Container } from '../src/container.js';
import { isUnavailable } from '../src/adapters/unavailable.js';
import { AppError, ERROR_STATUS, isAppError } from '../src/domain/errors.js';
import type { RateLimitDecision } from '../src/ports/rate-limiter.js';
import type { GraphQLContext } from './context.js';
import { useCompiledQueries } from './compiled-queries.js';
import { graphqlHttpHardening } from './http.js';
import { buildSchema } from './index.js';

class RateLimitedError extends AppError {
  constructor(readonly decision: RateLimitDecision, message: string) {
    super('RATE_LIMITED', message);
  }
}

/**
 * What a client sees of an error (HTTP and graphql-ws alike): AppErrors with their code, an
 * unreachable store as SERVICE_UNAVAILABLE, GraphQL's own validation errors as they are, and
 * anything else as a bare INTERNAL_ERROR (details only in the log).
 */
export function maskGraphQLError(error: unknown, container: Container): GraphQLError {
  const source = error instanceof GraphQLError ? error : undefined;
  const original = source && causeOf(source);
  const at = source ? { path: source.path, nodes: source.nodes } : {};
  if (isAppError(original)) return toGraphQLError(original, undefined, at);
  if (isAppError(error)) return toGraphQLError(error);
  if (isUnavailable(original)) return toGraphQLError(new AppError('SERVICE_UNAVAILABLE', 'A backing service is unavailable; retry shortly'), undefined, at);
  // GraphQL's own errors (a variable of the wrong type, say) are the client's, shown as they are.
  if (source && (!original || original instanceof GraphQLError)) return source;
  container.logger.error({ err: original ?? error }, 'graphql resolver failed');
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

export interface Credentials {
  authorization?: string | null | undefined;
  apiKey?: string | null | undefined;
  testMode?: string | null | undefined;
}

/**
 * Resolves the caller from the credentials: `ak_…` keys are merchants, `ct_…` tokens couriers,
 * anything else is checked as the admin token. Shared by HTTP requests and graphql-ws connections.
 */
export async function resolveGraphQLContext(container: Container, credentials: Credentials): Promise<GraphQLContext> {
  const context: GraphQLContext = { container, merchant: null, courier: null, isAdmin: false, rateLimit: null };
  const bearer = credentials.authorization?.replace(/^Bearer\s+/i, '').trim();
  const token = bearer || credentials.apiKey?.trim();
  if (!token) return context;
  const { auth } = container.services;
  if (token.startsWith('ak_')) {
    context.merchant = await auth.authenticateApiKey({ apiKey: token, testModeHeader: credentials.testMode ?? undefined });
    const limit = context.merchant.merchant.rateLimitPerMin ?? container.config.rateLimitPerMin;
    context.rateLimit = await container.rateLimiter.consume({ key: `key:${context.merchant.keyId}`, limitPerMin: limit });
    if (!context.rateLimit.allowed) {
      throw new RateLimitedError(context.rateLimit, `Rate limit of ${limit} requests per minute exceeded`);
    }
  } else if (token.startsWith('ct_')) {
    context.courier = await auth.authenticateCourier({ token });
  } else {
    auth.authenticateAdmin({ token });
    context.isAdmin = true;
  }
  return context;
}

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

function rateLimitHeaders(d: RateLimitDecision): Record<string, string> {
  const reset = String(Math.max(1, Math.ceil(d.resetMs / 1000)));
  return {
    'RateLimit-Limit': String(d.limit),
    'RateLimit-Remaining': String(d.remaining),
    'RateLimit-Reset': reset,
    ...(!d.allowed && { 'Retry-After': reset }),
  };
}

export function createGraphQLServer(container: Container): GraphQLServer {
  return createYoga<NodeServerContext, GraphQLContext>({
    schema: buildSchema(),
    graphqlEndpoint: '/graphql',
    landingPage: false,
    // Callers authenticate with a header, never a cookie: cross-origin calls need no credentials mode.
    cors: { credentials: false },
    graphiql: { title: 'Express Delivery GraphQL', subscriptionsProtocol: 'WS' },
    logging: false,
    // serveGraphQLHttp (schema/http.ts) enforces GRAPHQL_BODY_LIMIT before Yoga sees the request.
    maxRequestBodySize: false,
    context: async ({ request, res }) => {
      try {
        const context = await resolveGraphQLContext(container, {
          authorization: request.headers.get('authorization'),
          apiKey: request.headers.get('x-api-key'),
          testMode: request.headers.get('x-test-mode'),
        });
        // Straight on the node response: Yoga's own header merge costs more than these four lines.
        if (context.rateLimit) for (const [name, value] of Object.entries(rateLimitHeaders(context.rateLimit))) res?.setHeader(name, value);
        return context;
      } catch (error) {
        if (error instanceof RateLimitedError) throw toGraphQLError(error, rateLimitHeaders(error.decision));
        throw isAppError(error) ? toGraphQLError(error) : error;
      }
    },
    maskedErrors: { maskError: (error) => maskGraphQLError(error, container) },
    plugins: [
      EnvelopArmorPlugin({
        maxDepth: { n: 10 },
        // Counts list sizes (first: N): 100 orders with their driver and events is about 14,000.
        costLimit: { maxCost: 20_000, flattenFragments: true },
        maxAliases: { n: 15 },
        maxDirectives: { n: 20 },
        maxTokens: { n: 2000 },
      }),
      graphqlHttpHardening(),
      useCompiledQueries(container.logger),
    ],
  });
}
