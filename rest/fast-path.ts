import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Edge } from '../src/edge/edge.js';
import type { Metrics } from '../src/metrics.js';
import { BODY_LIMIT } from './app.js';
import { accessLog } from './middleware/access-log.js';
import { authenticateMerchant, type MerchantAccess } from './middleware/auth.js';
import { sendError } from './middleware/errors.js';
import { admitAnonymous } from './middleware/rate-limit.js';
import { edgeOfEveryRequest, isPlainJsonType, parseJsonBody } from './middleware/security.js';
import type { HotCall, PublicCall } from './respond.js';
import { hotOrderHandlers } from './routes/orders.js';
import { hotQuoteHandler } from './routes/quotes.js';
import { hotTrackingHandler } from './routes/tracking.js';

type Middleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/** `pattern`: as Express names the route (the access log's and the metrics' route label). */
type HotRoute =
  | { pattern: string; access: MerchantAccess; handle: (call: HotCall) => Promise<void> }
  | { pattern: string; access: 'anonymous'; handle: (call: PublicCall) => Promise<void> };

// Unreserved characters only: a percent-encoded or other id is Express's to decode.
const ORDER_PATH = /^\/api\/v1\/orders\/([\w.~-]+)$/;
const TRACKING_PATH = /^\/api\/v1\/tracking\/([\w.~-]+)$/;
const hasBody = (req: IncomingMessage) => req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;

/**
 * The hottest /api/v1 routes (a merchant's order read, order creation and quote; a customer's
 * tracking poll) answered on node:http directly: Express's per-request setup and router walk cost
 * more than an order read's own work (bench/orders: 168 → 55 µs of server CPU per read). The same
 * steps run in the same order as on their Express routes (rest/app.ts): security headers and
 * access log, the JSON body (express.json and the depth limit), the front door (or the anonymous
 * budget), the route's own handler, the error handler. Only the plainest requests are taken: the
 * exact path without a query string, a GET without a body, a POST of plain `application/json`.
 * Every other spelling goes to Express, which serves it as before.
 */
export function createRestFastPath(edge: Edge, metrics: Metrics) {
  const enter = edgeOfEveryRequest(accessLog(edge.logger, metrics)) as unknown as Middleware;
  const parseBody = parseJsonBody({ limit: BODY_LIMIT }) as unknown as Middleware;
  const operate: MerchantAccess = { level: 'operate' };
  const orders = hotOrderHandlers(edge);
  const readOrder: HotRoute = { pattern: '/api/v1/orders/:id', access: operate, handle: orders.readOrder };
  const createOrder: HotRoute = { pattern: '/api/v1/orders', access: operate, handle: orders.createOrder };
  const quote: HotRoute = { pattern: '/api/v1/shipping/quote', access: operate, handle: hotQuoteHandler(edge) };
  const tracking: HotRoute = { pattern: '/api/v1/tracking/:reference', access: 'anonymous', handle: hotTrackingHandler(edge) };

  function hotRouteOf(req: IncomingMessage): { route: HotRoute; params: Record<string, string> } | null {
    const url = req.url ?? '';
    if (req.method === 'GET') {
      if (hasBody(req)) return null;
      const order = ORDER_PATH.exec(url);
      if (order) return { route: readOrder, params: { id: order[1]! } };
      const track = TRACKING_PATH.exec(url);
      return track ? { route: tracking, params: { reference: track[1]! } } : null;
    }
    if (req.method !== 'POST' || !isPlainJsonType(req.headers['content-type'])) return null;
    if (url === '/api/v1/orders') return { route: createOrder, params: {} };
    if (url === '/api/v1/shipping/quote') return { route: quote, params: {} };
    return null;
  }

  async function answer(req: IncomingMessage, res: ServerResponse, route: HotRoute, params: Record<string, string>) {
    const body = (req as { body?: unknown }).body;
    try {
      if (route.access === 'anonymous') {
        await admitAnonymous(edge, req, res);
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
        if (req.method === 'GET') return void answer(req, res, route, params);
        parseBody(req, res, (error) => (error ? sendError(edge.logger, error, req, res) : void answer(req, res, route, params)));
      });
      return true;
    },
    /** Requests served so far (the tests check which path answered). */
    get served() {
      return served;
    },
  };
}
