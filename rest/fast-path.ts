import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Edge } from '../src/edge/edge.js';
import type { Metrics } from '../src/metrics.js';
import { BODY_LIMIT } from './app.js';
import { accessLog } from './middleware/access-log.js';
import { authenticateMerchant } from './middleware/auth.js';
import { sendError } from './middleware/errors.js';
import { admitTrackingView } from './middleware/rate-limit.js';
import { edgeOfEveryRequest, isPlainJsonType, parseJsonBody } from './middleware/security.js';
import type { DeclaredRoute } from './route.js';
import { hotOrderRoutes } from './routes/orders.js';
import { hotQuoteRoute } from './routes/quotes.js';
import { hotTrackingRoute } from './routes/tracking.js';

type Middleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/** A declared route as the fast path matches it: `pattern` is Express's full path (the access log's and the metrics' route label). */
interface FastRoute {
  route: DeclaredRoute;
  pattern: string;
  matcher: RegExp;
  names: string[];
}

/**
 * The matcher of a declared path under /api/v1: literal segments as they are, each `:name` one
 * segment of unreserved characters only (a percent-encoded or other id is Express's to decode).
 */
function fastRouteOf(route: DeclaredRoute): FastRoute {
  const pattern = `/api/v1${route.path}`;
  const names: string[] = [];
  const source = pattern
    .split('/')
    .map((segment) => (segment.startsWith(':') ? (names.push(segment.slice(1)), '([\\w.~-]+)') : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return { route, pattern, matcher: new RegExp(`^${source}$`), names };
}

const hasBody = (req: IncomingMessage) => req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;

/**
 * The hottest /api/v1 routes (a merchant's order read, order creation and quote; a customer's
 * tracking poll) answered on node:http directly: Express's per-request setup and router walk cost
 * more than an order read's own work (bench/orders: 168 → 55 µs of server CPU per read). The routes
 * are the very declarations Express mounts (rest/route.ts): path, access and handler are written
 * once. The same steps run in the same order as on their Express routes (rest/app.ts): security
 * headers and access log, the JSON body (express.json and the depth limit), the front door (or the
 * tracking view's budget), the route's own handler, the error handler. Only the plainest requests
 * are taken: the exact path without a query string, a GET without a body, a POST of plain
 * `application/json`. Every other spelling goes to Express, which serves it as before.
 */
export function createRestFastPath(edge: Edge, metrics: Metrics) {
  const enter = edgeOfEveryRequest(accessLog(edge.logger, metrics)) as unknown as Middleware;
  const parseBody = parseJsonBody({ limit: BODY_LIMIT }) as unknown as Middleware;
  const orders = hotOrderRoutes(edge);
  const routes = [orders.readOrder, orders.createOrder, hotQuoteRoute(edge), hotTrackingRoute(edge)].map(fastRouteOf);

  function hotRouteOf(req: IncomingMessage): { route: FastRoute; params: Record<string, string> } | null {
    const url = req.url ?? '';
    if (req.method === 'GET' ? hasBody(req) : req.method !== 'POST' || !isPlainJsonType(req.headers['content-type'])) return null;
    for (const route of routes) {
      if (route.route.method !== req.method) continue;
      const match = route.matcher.exec(url);
      if (!match) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => (params[name] = match[i + 1]!));
      return { route, params };
    }
    return null;
  }

  async function answer(req: IncomingMessage, res: ServerResponse, route: DeclaredRoute, params: Record<string, string>) {
    const body = (req as { body?: unknown }).body;
    try {
      if (route.access === 'tracking-view') {
        // No query string on this path, so no capability: the address's anonymous budget, as on Express.
        await admitTrackingView(edge, req, res, { reference: params.reference!, capability: undefined });
        await route.handle({ req, res, body, params });
      } else {
        const principal = await authenticateMerchant(edge, req, res, route.access);
        await route.handle({ req, res, principal, body, params });
      }
    } catch (error) {
      sendError(edge.logger, error, req, res);
    }
  }

  let served = 0;
  return {
    /** Serves the request and returns true when it is one of the routes above in its plainest form; else false, untouched. */
    serve(req: IncomingMessage, res: ServerResponse): boolean {
      const hot = hotRouteOf(req);
      if (!hot) return false;
      served++;
      const { route, params } = hot;
      req.routePattern = route.pattern;
      enter(req, res, () => {
        if (req.method === 'GET') return void answer(req, res, route.route, params);
        parseBody(req, res, (error) => (error ? sendError(edge.logger, error, req, res) : void answer(req, res, route.route, params)));
      });
      return true;
    },
    /** Requests served so far (the tests check which path answered). */
    get served() {
      return served;
    },
  };
}
