import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { GraphQLError, type ExecutionResult } from 'graphql';
import { createGraphQLError, isAsyncIterable, processRegularResult, type Plugin } from 'graphql-yoga';
import type { GraphQLServer } from './yoga.js';

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => unknown;
/** The handler, and how many requests took the fast path (for tests). */
export type GraphQLHttpHandler = NodeHandler & { fastPathed: number };
type Params = { query: string; operationName?: string | null; variables?: unknown; extensions?: unknown };
type Hook = (payload: Record<string, unknown>) => unknown;
type Result = ExecutionResult | AsyncIterable<ExecutionResult>;

/** The parts of Yoga's server (graphql-yoga 5, server.js) this path drives: built once, read once. */
interface YogaInternals {
  plugins: Array<Plugin | undefined | false>;
  onRequestParseHooks: Hook[];
  onResultProcessHooks: Hook[];
  maskedErrorsOpts: { maskError(error: unknown, message: string, isDev?: boolean): Error; errorMessage: string; isDev?: boolean } | null;
  getResultForParams(payload: { params: Params; request: Request }, context: Record<string, unknown>): Promise<Result | undefined> | Result | undefined;
  waitUntil(promise: Promise<unknown>): void;
}

/** A Fetch Headers over a node request's headers, as @whatwg-node reads them (lists joined by ", "). */
class NodeRequestHeaders {
  constructor(private readonly raw: IncomingHttpHeaders) {}
  get(name: string): string | null {
    const value = this.raw[name] ?? this.raw[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  }
  has(name: string): boolean {
    return this.get(name) !== null;
  }
}

/** What Yoga's hooks read of a request on this path (method, url, headers), without a web Request. */
class NodeRequest {
  readonly headers: NodeRequestHeaders;
  readonly method: string;
  constructor(private readonly req: IncomingMessage) {
    this.headers = new NodeRequestHeaders(req.headers);
    this.method = req.method!;
  }
  get url(): string {
    return `http://${this.req.headers.host ?? 'localhost'}${this.req.url}`;
  }
}

/** Response headers kept as the plain object Yoga builds them in (written as-is, like its single writeHead). */
class PlainHeaders {
  readonly init: Record<string, string>;
  constructor(init?: Record<string, string> | PlainHeaders) {
    this.init = init instanceof PlainHeaders ? Object.assign({}, init.init) : Object.assign({}, init);
  }
  private keyOf(name: string): string | undefined {
    const lower = name.toLowerCase();
    for (const key in this.init) if (key.toLowerCase() === lower) return key;
    return undefined;
  }
  get(name: string): string | null {
    const key = this.keyOf(name);
    return key === undefined ? null : this.init[key]!;
  }
  set(name: string, value: string): void {
    const key = this.keyOf(name);
    if (key !== undefined) delete this.init[key];
    this.init[name.toLowerCase()] = value;
  }
}

class PlainResponse {
  readonly status: number;
  readonly headers: PlainHeaders;
  constructor(
    readonly body: string | null,
    init: { status?: number; headers?: Record<string, string> | PlainHeaders } = {},
  ) {
    this.status = init.status ?? 200;
    this.headers = new PlainHeaders(init.headers);
    // As @whatwg-node's Response does for a body it knows.
    if (body !== null && this.headers.get('content-length') === null) this.headers.init['content-length'] = String(Buffer.byteLength(body));
  }
}

/** The Fetch API Yoga's result processor and response hooks build with on this path. */
const plainFetchAPI = { Response: PlainResponse, Headers: PlainHeaders };

/** Yoga's JSON body check (isPOSTJsonRequest): the first listed type, exactly, parameters allowed. */
function isJsonBody(contentType: string | undefined): boolean {
  const first = contentType?.split(',', 1)[0];
  if (!first) return false;
  return first === 'application/json' || first.startsWith('application/json;') || first === 'application/graphql+json' || first.startsWith('application/graphql+json;');
}

/**
 * Whether Yoga would answer a (non-streamed) result as JSON: some media type in Accept, in
 * utf-8, matches application/json or application/graphql-response+json (result-processor/accept.js).
 */
function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept === '*/*' || accept === 'application/json') return true;
  for (const entry of accept.replace(/\s/g, '').toLowerCase().split(',')) {
    const [mediaType, ...params] = entry.split(';');
    const charset = params.find((p) => p.includes('charset=')) ?? 'charset=utf-8';
    if (charset !== 'charset=utf-8' || !mediaType) continue;
    const [type, subtype] = mediaType.split('/');
    if ((type === '*' || type === 'application') && (subtype === '*' || subtype === 'json' || subtype === 'graphql-response+json')) return true;
  }
  return false;
}

/** A hook's promise, or nothing to wait for (a synchronous hook is not awaited: no microtask). */
const settled = (returned: unknown) => (returned && typeof (returned as Promise<unknown>).then === 'function' ? (returned as Promise<unknown>) : undefined);

/** The parameters of a POST body that Yoga would take as they are, or null (Yoga then answers). */
function paramsOf(body: Buffer): Params | null {
  // A byte-order mark or anything but an object goes to Yoga, whose parser words those refusals.
  if (body[0] !== 0x7b) return null;
  let params: unknown;
  try {
    params = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  const p = params as Record<string, unknown>;
  if (typeof p.query !== 'string') return null;
  if (p.operationName != null && typeof p.operationName !== 'string') return null;
  return p as Params;
}

/**
 * GraphQL over HTTP for the queries the app sees over and over, without Yoga's Fetch-API layer:
 * no web Request (URL, headers, abort signal, body stream), no web Response (header merge, body
 * writer). Taken only by a POST of JSON to /graphql whose document useCompiledQueries has compiled
 * (a query, valid, run before without errors) and whose Accept allows JSON; everything else goes
 * to Yoga as before.
 *
 * The request still passes every Yoga and envelop hook that applies to it: onRequestParse (and
 * Done), onParams (front door, parameter checks, JSON depth), the envelop (armor limits, parse and
 * validation caches, context, compiled execution, error masking), onExecutionResult,
 * onResultProcess, Yoga's own result processor (status, headers, body) and onResponse (CORS). Only
 * onRequest is not run: for a POST to /graphql every one of them (health check, GraphiQL, CORS
 * preflight, unknown routes) lets the request through. The response is written as Yoga's node
 * adapter writes it: its status, the result processor's headers over those already on the node
 * response, the body with its length.
 *
 * Until the front door has run, the path can still hand the request to Yoga (a hook that answers
 * or throws while parsing): after it, this path answers, errors included, as Yoga does.
 */
export function graphqlOverHttp(yoga: GraphQLServer, compiled: { has(operationName: string | null | undefined, query: string): boolean }): GraphQLHttpHandler {
  const yogaHandle = yoga.handle;
  const internals = yoga as unknown as YogaInternals;
  const { onRequestParseHooks, onResultProcessHooks, maskedErrorsOpts } = internals;
  const getResultForParams = internals.getResultForParams;
  const waitUntil = internals.waitUntil;
  const onResponseHooks = internals.plugins.flatMap((p) => (p && p.onResponse ? [p.onResponse as unknown as Hook] : []));

  /** Yoga's handleError for what a request's handling threw (graphql-yoga error.js). */
  function masked(error: unknown): GraphQLError[] {
    if (error && typeof error === 'object' && 'errors' in error && Array.isArray(error.errors)) return error.errors.flatMap(masked);
    if (!maskedErrorsOpts) return [error as GraphQLError];
    const mask = maskedErrorsOpts.maskError(error, maskedErrorsOpts.errorMessage, maskedErrorsOpts.isDev);
    return [mask instanceof GraphQLError ? mask : createGraphQLError(mask.message, { originalError: mask })];
  }

  /** Yoga's onRequestParse hooks and their Done hooks; false when one answers or throws (Yoga then handles the request). */
  function parseHooksPass(request: NodeRequest, serverContext: Record<string, unknown>, params: Params): boolean {
    // One payload for every hook (Yoga makes one each); the parser they choose is Yoga's JSON one
    // (the preconditions), and the body is parsed here as it would.
    const payload = {
      request,
      get url() {
        return new URL(request.url);
      },
      requestParser: undefined as unknown,
      serverContext,
      setRequestParser: (parser: unknown) => void (payload.requestParser = parser),
      answered: false,
      endResponse: () => void (payload.answered = true),
      fetchAPI: plainFetchAPI,
    };
    try {
      let done: Hook[] | undefined;
      for (const hook of onRequestParseHooks) {
        const returned = hook(payload) as { onRequestParseDone?: Hook; then?: unknown } | undefined;
        if (payload.answered || typeof returned?.then === 'function') return false;
        if (returned?.onRequestParseDone) (done ??= []).push(returned.onRequestParseDone);
      }
      if (done) {
        const donePayload = { requestParserResult: params, setRequestParserResult: () => void (payload.answered = true) };
        for (const hook of done) if (hook(donePayload) !== undefined) return false;
      }
    } catch {
      return false;
    }
    return !payload.answered;
  }

  async function respond(request: NodeRequest, serverContext: Record<string, unknown>, params: Params, res: ServerResponse): Promise<void> {
    let response: PlainResponse;
    try {
      let result: Result | undefined;
      try {
        result = await getResultForParams({ params, request: request as unknown as Request }, serverContext);
      } catch (error) {
        result = { errors: masked(error) };
      }
      let processor: unknown;
      let mediaType = '*/*';
      for (const hook of onResultProcessHooks) {
        const pending = settled(hook({
          request,
          acceptableMediaTypes: [],
          result,
          setResult: (next: Result) => (result = next),
          resultProcessor: processor,
          setResultProcessor: (next: unknown, type: string) => ((processor = next), (mediaType = type)),
          serverContext,
        }));
        if (pending) await pending;
      }
      if (processor !== processRegularResult || result === undefined || isAsyncIterable(result)) {
        throw new Error('graphql fast path: the result is not a single JSON answer (the preconditions were not enough)');
      }
      response = processRegularResult(result, plainFetchAPI as never, mediaType) as unknown as PlainResponse;
    } catch (error) {
      response = processRegularResult({ errors: masked(error) }, plainFetchAPI as never, 'application/json') as unknown as PlainResponse;
    }
    for (const hook of onResponseHooks) {
      const pending = settled(hook({ request, response, serverContext, setResponse: (next: PlainResponse) => (response = next), fetchAPI: plainFetchAPI }));
      if (pending) await pending;
    }
    if (res.writableEnded || res.destroyed) return;
    res.writeHead(response.status, response.headers.init);
    res.end(response.body ?? undefined);
  }

  const handler: GraphQLHttpHandler = Object.assign((req: IncomingMessage, res: ServerResponse) => {
    const body = (req as IncomingMessage & { rawBody?: Buffer }).rawBody;
    const params =
      body !== undefined && req.method === 'POST' && req.url === '/graphql' && isJsonBody(req.headers['content-type']) && acceptsJson(req.headers.accept)
        ? paramsOf(body)
        : null;
    if (!params || !compiled.has(params.operationName, params.query)) return yogaHandle(req, res);
    const request = new NodeRequest(req);
    const serverContext: Record<string, unknown> = { req, res, waitUntil };
    if (!parseHooksPass(request, serverContext, params)) return yogaHandle(req, res);
    handler.fastPathed++;
    return respond(request, serverContext, params, res).catch((error: unknown) => {
      res.destroy(error as Error);
    });
  }, { fastPathed: 0 });
  return handler;
}
