import express, { type Express } from 'express';
import type { Edge } from '../src/edge/edge.js';
import { AppError } from '../src/domain/errors.js';
import { metricsAccess, type Metrics } from '../src/metrics.js';
import { accessLog } from './middleware/access-log.js';
import { errorHandler, notFoundHandler } from './middleware/errors.js';
import { methodNotAllowed } from './middleware/method-not-allowed.js';
import { edgeOfEveryRequest, parseJsonBody, requireJsonBody } from './middleware/security.js';
import { openApiRoutes } from './openapi/routes.js';
import { healthRoutes } from './routes/health.js';
import { merchantRoutes } from './routes/merchants.js';
import { quoteRoutes } from './routes/quotes.js';
import { integrationRoutes } from './routes/integrations.js';
import { storefrontRoutes } from './routes/storefront.js';
import { orderRoutes } from './routes/orders.js';
import { courierRoutes } from './routes/couriers.js';
import { proofRoutes } from './routes/proofs.js';
import { trackingRoutes } from './routes/tracking.js';
import { trackingPageRoutes } from './routes/tracking-page.js';
import { pageRoutes } from './routes/pages.js';
import { webAppRoutes } from './routes/web-apps.js';
import { sandboxRoutes } from './routes/sandbox.js';
import { webhookRoutes } from './routes/webhooks.js';
import { eventRoutes } from './routes/events.js';
import { notificationRoutes } from './routes/notifications.js';
import { codRoutes } from './routes/cod.js';

export const BODY_LIMIT = '100kb';

/** The Express app for /api/v1; GraphQL and sockets are routed beside it, never through it. */
export function createRestApp(edge: Edge, metrics: Metrics): Express {
  const app = express();
  app.disable('x-powered-by');
  // Client addresses come from the front door (TRUST_PROXY, src/edge/client-address.ts), never req.ip.
  app.set('trust proxy', false);
  app.set('etag', false);

  app.use(edgeOfEveryRequest(accessLog(edge.logger, metrics)));

  const metricsGate = metricsAccess({ token: edge.config.metricsToken, production: edge.config.production });
  app.get('/metrics', async (req, res, next) => {
    const access = metricsGate(req.headers.authorization);
    // Hidden: the same 404 as any path that does not exist.
    if (access === 'hidden') return next();
    if (access === 'unauthorized') {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      return next(new AppError('INVALID_API_KEY', 'Metrics need Authorization: Bearer <METRICS_TOKEN>'));
    }
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  });

  const api = express.Router();
  // Before the JSON-only rule: proof uploads are image bodies (issue #27).
  proofRoutes(api, edge);
  api.use(requireJsonBody());
  // Before the JSON parser: storefront signatures are checked over the raw bytes.
  storefrontRoutes(api, edge, BODY_LIMIT);
  api.use(parseJsonBody({ limit: BODY_LIMIT }));
  quoteRoutes(api, edge);
  orderRoutes(api, edge);
  healthRoutes(api, edge);
  api.use(openApiRoutes(edge));
  merchantRoutes(api, edge);
  integrationRoutes(api, edge);
  courierRoutes(api, edge);
  trackingRoutes(api, edge);
  sandboxRoutes(api, edge);
  webhookRoutes(api, edge);
  eventRoutes(api, edge);
  notificationRoutes(api, edge);
  codRoutes(api, edge);
  api.use(methodNotAllowed(api));
  app.use('/api/v1', api);
  // The customer tracking page (its own CSP); its live socket is routed in src/app.ts.
  app.use(trackingPageRoutes(edge));
  // The landing page at / and GraphiQL's files (its page is Yoga's, on GET /graphql).
  app.use(pageRoutes(edge));
  // The merchant console (its own CSP): a browser app on the public GraphQL API only.
  app.use(webAppRoutes(edge));

  app.use(notFoundHandler());
  app.use(errorHandler(edge.logger));
  return app;
}
