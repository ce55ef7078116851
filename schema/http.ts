import type { IncomingMessage, ServerResponse } from 'node:http';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../src/domain/json-depth.js';
import { GRAPHIQL_CSP } from '../src/edge/graphiql.js';

/** GraphQL bodies get the REST limit (100 kB): Yoga itself would buffer a body of any size. */
export const GRAPHQL_BODY_LIMIT = 100 * 1024;

const TOO_LARGE = JSON.stringify({ errors: [{ message: 'Request body exceeds the 100 kB limit', extensions: { code: 'PAYLOAD_TOO_LARGE' } }] });

/** The same headers as the REST API's (rest/middleware/security.ts); GraphiQL's page keeps its own CSP. */
const SECURITY_HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'Cross-Origin-Resource-Policy': 'same-origin',
};
const JSON_CSP = "default-src 'none'; frame-ancestors 'none'";

/** The types Yoga's JSON body parser takes (graphql-yoga's isPOSTJsonRequest). */
const JSON_MEDIA_TYPES = new Set(['application/json', 'application/graphql+json']);
const mediaTypeOf = (contentType: string | null) => contentType?.split(';', 1)[0]!.trim().toLowerCase() ?? '';

/**
 * What a bare transport refusal of Yoga's (no body) means, as a GraphQL errors array. A code of the
 * closed list where one has the status, else Yoga's own transport code `BAD_REQUEST` (not in the
 * list: see docs/decisions/0002-errors-and-limits.md, "GraphQL's transport codes are not in the list").
 */
const BARE_REFUSALS: Record<number, { message: string; code: string }> = {
  405: { message: 'Method not allowed on /graphql', code: 'METHOD_NOT_ALLOWED' },
  406: { message: 'The Accept header allows no format for this response (subscriptions over HTTP need text/event-stream)', code: 'BAD_REQUEST' },
  415: { message: 'Unsupported Content-Type: send application/json', code: 'UNSUPPORTED_MEDIA_TYPE' },
};

function refuseTooLarge(req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(413, { 'Content-Type': 'application/json; charset=utf-8', Connection: 'close' });
  res.end(TOO_LARGE);
  req.resume();
}

/** A body already read, in the form Yoga's node adapter takes as-is: an async iterable with an own key (`bytes`), yielding one chunk. */
function readBody(raw: Buffer): AsyncIterable<Buffer> & { bytes: number } {
  return {
    bytes: raw.length,
    [Symbol.asyncIterator]: () => {
      let done = false;
      return { next: () => Promise.resolve(done ? { done: true as const, value: undefined } : ((done = true), { done: false as const, value: raw })) };
    },
  };
}

/**
 * Hands an HTTP request to Yoga once its body is known to fit the limit: a declared
 * Content-Length is checked up front, and the body is read here while counting.
 *
 * The body goes to Yoga already read (`req.body`), and Yoga's own body limit is off (this one is
 * stricter): otherwise each body is piped through a web TransformStream, whose stream/promises
 * pipeline builds an AbortController and a DOMException per request — about a tenth of a bare
 * Yoga request's CPU (bench/quote). Yoga does not inflate compressed bodies, so the count here is
 * of the bytes it parses.
 */
export function serveGraphQLHttp(handle: (req: IncomingMessage, res: ServerResponse) => unknown, req: IncomingMessage, res: ServerResponse): void {
  // On the node response, under what Yoga writes: cheaper than setting them on each web Response.
  for (const name in SECURITY_HEADERS) res.setHeader(name, SECURITY_HEADERS[name]!);
  res.setHeader('Content-Security-Policy', JSON_CSP);
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > GRAPHQL_BODY_LIMIT) return refuseTooLarge(req, res);
  if (declared === undefined && req.headers['transfer-encoding'] === undefined) return void handle(req, res);
  const chunks: Buffer[] = [];
  let size = 0;
  let refused = false;
  req.on('data', (chunk: Buffer) => {
    if (refused) return;
    size += chunk.length;
    if (size > GRAPHQL_BODY_LIMIT) {
      refused = true;
      return refuseTooLarge(req, res);
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (refused) return;
    const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    // `rawBody` for the fast path (schema/fast-http.ts), `body` for Yoga.
    Object.assign(req, { rawBody: raw, body: readBody(raw) });
    void handle(req, res);
  });
  req.on('error', () => res.destroy());
}

/**
 * GraphiQL's own CSP, an errors array where Yoga answers with no body, a 400 for variables nested
 * deeper than the REST bodies may be,
 * and a 400 for `variables`/`extensions` parameters that are not JSON (GET and form posts), which
 * Yoga's parser would otherwise throw as a bare SyntaxError (masked as an internal error).
 */
export function graphqlHttpHardening(): Plugin {
  return {
    onRequestParse: ({ request, requestParser, setRequestParser }) => {
      // A JSON POST carries its variables as JSON already; Yoga answers a bad body with a 400 itself.
      if (!requestParser || (request.method === 'POST' && JSON_MEDIA_TYPES.has(mediaTypeOf(request.headers.get('content-type'))))) return;
      setRequestParser(async (request) => {
        try {
          return await requestParser(request);
        } catch (error) {
          if (!(error instanceof SyntaxError)) throw error;
          throw createGraphQLError('Request parameters are not valid JSON', { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });
        }
      });
    },
    // The REST body limit on nesting, for `variables` and `extensions` (rest/middleware/security.ts).
    onParams: ({ params }) => {
      if (exceedsJsonDepth(params.variables) || exceedsJsonDepth(params.extensions)) {
        throw createGraphQLError(`variables and extensions may nest at most ${MAX_JSON_DEPTH} levels`, {
          extensions: { code: 'VALIDATION_ERROR', http: { status: 400 } },
        });
      }
    },
    onResponse: ({ response, setResponse, fetchAPI }) => {
      const refusal = response.body === null ? BARE_REFUSALS[response.status] : undefined;
      if (refusal) {
        const headers = new fetchAPI.Headers(response.headers);
        headers.set('Content-Type', 'application/json; charset=utf-8');
        response = new fetchAPI.Response(JSON.stringify({ errors: [{ message: refusal.message, extensions: { code: refusal.code } }] }), {
          status: response.status,
          headers,
        });
        setResponse(response);
      }
      // The security headers are on the node response already (serveGraphQLHttp); GraphiQL's page
      // loads its scripts, so it gets a CSP of its own.
      if (response.headers.get('content-type')?.startsWith('text/html')) response.headers.set('Content-Security-Policy', GRAPHIQL_CSP);
    },
  };
}
