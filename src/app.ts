import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { loadConfig, type Config } from './config.js';
import { buildContainer, type Container, type ContainerOverrides } from './container.js';
import type { Edge } from './edge/edge.js';
import { STRICT_TRANSPORT_SECURITY } from './edge/session-cookie.js';
import { createHttpDrain } from './http-drain.js';
import { AppError } from './domain/errors.js';
import { createMetrics } from './metrics.js';
import { createRestApp } from '../rest/app.js';
import { createRestFastPath } from '../rest/fast-path.js';
import { accessLog } from '../rest/middleware/access-log.js';
import { sendError } from '../rest/middleware/errors.js';
import { setSecurityHeaders } from '../rest/middleware/security.js';
import { presentCourierOrder } from '../rest/presenters/order.js';
import { createGraphQLServer, maskGraphQLError } from '../schema/yoga.js';
import { serveGraphQLHttp } from '../schema/http.js';
import { attachGraphQLWebSocket } from '../realtime/graphql-ws.js';
import { attachTrackingSockets, type TrackingSockets } from '../realtime/tracking-socket.js';
import { attachCourierSockets, type CourierSockets } from '../realtime/courier-socket.js';
import { recordPublicAddress } from './adapters/public-address.js';
import { startSandboxSimulator } from './sandbox-runner.js';
import { startWebhookWorker } from './webhook-runner.js';
import { startDispatchReconciler } from './reconciler-runner.js';
import { startRetention } from './retention-runner.js';
import { startNotificationWorker } from './notification-runner.js';

export interface App {
  container: Container;
  server: Server;
  /** The public live tracking sockets (stats for metrics and tests). */
  trackingSockets: TrackingSockets;
  /** The courier apps' live sockets (position reports). */
  courierSockets: CourierSockets;
  /** Listens on config.port (0 picks a free port) and resolves with the bound address. */
  start(): Promise<{ port: number; url: string }>;
  /** Stops accepting and drains (src/http-drain.ts: keep-alive clients are told to close; at most the grace period), then closes adapters. */
  stop(options?: { closeBudgetMs?: number }): Promise<void>;
}

/** How soon a client refused during a drain may retry (another node behind the balancer answers at once). */
const DRAINING_RETRY_AFTER_SECONDS = 2;
const SHUTTING_DOWN = 'This node is shutting down; retry shortly';
/** After the drain, what closing background work and adapters may take when the process stops (it exits within the grace + 1 s). */
export const CLOSE_BUDGET_MS = 800;

/**
 * One node:http server: /graphql goes straight to Yoga (HTTP) or graphql-ws (upgrade), the hottest
 * REST routes to the REST fast path (rest/fast-path.ts), everything else to Express. Yoga is never
 * mounted behind Express.
 */
export async function buildApp(options: { config?: Config; overrides?: ContainerOverrides } = {}): Promise<App> {
  const config = options.config ?? loadConfig();
  const container = await buildContainer(config, options.overrides);
  const metrics = createMetrics();
  container.services.notificationRefusals.listen((refusal) => metrics.notificationsBlocked.inc({ reason: refusal.reason, channel: refusal.channel }));
  // The entrances get services, config, logger and the front door: never the store, bus or adapters.
  const edge: Edge = { services: container.services, config, logger: container.logger, door: container.door };
  const rest = createRestApp(edge, metrics);
  const restFastPath = createRestFastPath(edge, metrics);
  const yoga = createGraphQLServer(edge, { onCompile: () => metrics.graphqlCompilations.inc() });
  const isGraphQL = (url: string | undefined) => url === '/graphql' || !!url?.startsWith('/graphql?');

  // GraphQL requests (and refusals while draining) get the same access log line and metrics as REST ones, without Express.
  const logRequest = accessLog(container.logger, metrics) as unknown as (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
  const server = createServer((req, res) => {
    if (edge.door.overTls(req)) res.setHeader('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
    if (!drain.admit(req, res)) return logRequest(req, res, () => refuseWhileDraining(req, res));
    if (isGraphQL(req.url)) return logRequest(req, res, () => serveGraphQLHttp(yoga, req, res));
    if (!restFastPath.serve(req, res)) rest(req, res);
  });
  const drain = createHttpDrain({ server, graceMs: config.shutdownGraceMs });
  /** Late in the drain a new request is refused (it might not finish in the grace): the client retries elsewhere. */
  function refuseWhileDraining(req: IncomingMessage, res: ServerResponse): void {
    req.resume();
    res.setHeader('Retry-After', String(DRAINING_RETRY_AFTER_SECONDS));
    if (!isGraphQL(req.url)) {
      setSecurityHeaders(res as Parameters<typeof setSecurityHeaders>[0]);
      return sendError(container.logger, new AppError('SERVICE_UNAVAILABLE', SHUTTING_DOWN), req, res);
    }
    res.writeHead(503, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
    res.end(JSON.stringify({ errors: [{ message: SHUTTING_DOWN, extensions: { code: 'SERVICE_UNAVAILABLE' } }] }));
  }
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 30_000;

  const graphqlWs = attachGraphQLWebSocket({ edge, yoga, mask: (error) => maskGraphQLError(error, edge), maxPayload: 100 * 1024 });
  const trackingSockets = attachTrackingSockets({ edge });
  const courierSockets = attachCourierSockets({ edge, presentOrder: (order, courier) => presentCourierOrder(order, courier, edge.services.trackingLinks) });
  server.on('upgrade', (req, socket: Socket, head) => {
    if (drain.draining) {
      socket.end(`HTTP/1.1 503 Service Unavailable\r\nRetry-After: ${DRAINING_RETRY_AFTER_SECONDS}\r\nConnection: close\r\n\r\n`);
    } else if (graphqlWs.handles(req.url ?? '')) {
      graphqlWs.handleUpgrade(req, socket, head);
    } else if (trackingSockets.handles(req.url ?? '')) {
      trackingSockets.handleUpgrade(req, socket, head);
    } else if (courierSockets.handles(req.url ?? '')) {
      courierSockets.handleUpgrade(req, socket, head);
    } else {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
    }
  });

  let simulator: { stop(): Promise<void> } | null = null;
  let webhookWorker: { stop(): Promise<void> } | null = null;
  let reconciler: { stop(): Promise<void> } | null = null;
  let retention: { stop(): Promise<void> } | null = null;
  let notificationWorker: { stop(): Promise<void> } | null = null;
  let stopping: Promise<void> | null = null;
  return {
    container,
    server,
    trackingSockets,
    courierSockets,
    start: () =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, () => {
          const { port } = server.address() as AddressInfo;
          if (!config.publicBaseUrlGiven) config.publicBaseUrl = `http://localhost:${port}`;
          try {
            recordPublicAddress({ dataDir: config.dataDir, url: config.publicBaseUrl, at: new Date().toISOString() });
          } catch (error) {
            container.logger.warn({ err: (error as Error).message }, 'could not record the public address in DATA_DIR: the admin CLI needs PUBLIC_BASE_URL for its links');
          }
          container.logger.info({ port, store: container.store.kind, redis: Boolean(container.redis) }, 'listening');
          startSandboxSimulator(container).then(
            (started) => {
              simulator = started;
              webhookWorker = startWebhookWorker(container);
              reconciler = startDispatchReconciler(container);
              retention = startRetention(container);
              notificationWorker = startNotificationWorker(container);
              resolve({ port, url: `http://127.0.0.1:${port}` });
            },
            reject,
          );
        });
      }),
    stop: (options = {}) =>
      (stopping ??= (async () => {
        // Background work stops taking new work at once; what it has in flight is durable in the store.
        const background = Promise.all([simulator?.stop(), reconciler?.stop(), retention?.stop(), webhookWorker?.stop(), notificationWorker?.stop()]);
        await Promise.all([drain.drain(), graphqlWs.close(), trackingSockets.close(), courierSockets.close()]);
        server.closeAllConnections();
        // Acknowledged writes are already committed; closing flushes buffers (positions) and ends
        // connections. With a budget (the process's stop), a store that does not answer cannot keep
        // the process past the grace + 1 s.
        const outcome = background.then(() => container.close()).then(() => 'closed' as const, (error: unknown) => ({ error }));
        const result = options.closeBudgetMs === undefined
          ? await outcome
          : await Promise.race([outcome, new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), options.closeBudgetMs).unref())]);
        if (result === 'late') container.logger.warn({ budgetMs: options.closeBudgetMs }, 'adapters did not close within their budget; stopping anyway');
        container.logger.flush();
        if (typeof result === 'object') throw result.error;
      })()),
  };
}
