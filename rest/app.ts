import { randomUUID } from 'node:crypto';
import express, { type Express, type Request } from 'express';
import { pinoHttp } from 'pino-http';
import type { Container } from '../src/container.js';
import type { Metrics } from '../src/metrics.js';
import { errorHandler, notFoundHandler } from './middleware/errors.js';
import { requireJsonBody, securityHeaders } from './middleware/security.js';
import { openApiRoutes } from './openapi/routes.js';
import { healthRoutes } from './routes/health.js';
import { merchantRoutes } from './routes/merchants.js';
import { quoteRoutes } from './routes/quotes.js';
import { integrationRoutes } from './routes/integrations.js';
import { storefrontRoutes } from './routes/storefront.js';
import { orderRoutes } from './routes/orders.js';
import { courierRoutes } from './routes/couriers.js';
import { trackingRoutes } from './routes/tracking.js';
import { trackingPageRoutes } from './routes/tracking-page.js';
import { sandboxRoutes } from './routes/sandbox.js';
import { webhookRoutes } from './routes/webhooks.js';

export const BODY_LIMIT = '100kb';
const REQUEST_ID = /^[\w.-]{1,64}$/;

declare module 'http' {
  interface IncomingMessage {
    /** The exact bytes of a JSON body, kept for signature checks (storefront HMAC). */
    rawBody?: Buffer;
  }
}

/** The Express app for /api/v1; GraphQL and sockets are routed beside it, never through it. */
export function createRestApp(container: Container, metrics: Metrics): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback, linklocal, uniquelocal');
  app.set('etag', false);

  app.use(
    pinoHttp({
      logger: container.logger,
      genReqId: (req, res) => {
        const given = req.headers['x-request-id'];
        const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    }),
  );
  app.use((req, res, next) => {
    const end = metrics.httpDuration.startTimer({ method: req.method });
    res.on('finish', () => {
      if (res.statusCode === 429) metrics.rateLimited.inc();
      end({ route: routeLabel(req), status: String(res.statusCode) });
    });
    next();
  });
  app.use(securityHeaders());

  app.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  });

  const api = express.Router();
  api.use(requireJsonBody());
  // Before the JSON parser: storefront signatures are checked over the raw bytes.
  api.use(storefrontRoutes(container, BODY_LIMIT));
  api.use(
    express.json({
      limit: BODY_LIMIT,
      type: 'application/json',
      verify: (req, _res, buf) => {
        req.rawBody = buf;
      },
    }),
  );
  api.use(healthRoutes(container));
  api.use(openApiRoutes(container));
  api.use(merchantRoutes(container));
  api.use(quoteRoutes(container));
  api.use(integrationRoutes(container));
  api.use(orderRoutes(container));
  api.use(courierRoutes(container));
  api.use(trackingRoutes(container));
  api.use(sandboxRoutes(container));
  api.use(webhookRoutes(container));
  app.use('/api/v1', api);
  // The customer tracking page (its own CSP); its live socket is routed in src/app.ts.
  app.use(trackingPageRoutes(container));

  app.use(notFoundHandler());
  app.use(errorHandler(container.logger));
  return app;
}

function routeLabel(req: Request): string {
  return req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
}
