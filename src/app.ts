import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { loadConfig, type Config } from './config.js';
import { buildContainer, type Container, type ContainerOverrides } from './container.js';
import type { Edge } from './edge/edge.js';
import { createMetrics } from './metrics.js';
import { createRestApp } from '../rest/app.js';
import { createRestFastPath } from '../rest/fast-path.js';
import { accessLog } from '../rest/middleware/access-log.js';
import { createGraphQLHttp, maskGraphQLError } from '../schema/yoga.js';
import { serveGraphQLHttp } from '../schema/http.js';
import { attachGraphQLWebSocket } from '../realtime/graphql-ws.js';
import { attachTrackingSockets, type TrackingSockets } from '../realtime/tracking-socket.js';
import { attachCourierSockets, type CourierSockets } from '../realtime/courier-socket.js';
import { startSandboxSimulator } from './sandbox-runner.js';
import { startWebhookWorker } from './webhook-runner.js';
import { startDispatchReconciler } from './reconciler-runner.js';
import { startRetention } from './retention-runner.js';

export interface App {
  container: Container;
  server: Server;
  /** The public live tracking sockets (stats for metrics and tests). */
  trackingSockets: TrackingSockets;
  /** The courier apps' live sockets (position reports). */
  courierSockets: CourierSockets;
  /** Listens on config.port (0 picks a free port) and resolves with the bound address. */
  start(): Promise<{ port: number; url: string }>;
  /** Stops accepting, drains open requests and sockets (up to the grace period), then closes adapters. */
  stop(): Promise<void>;
}

/**
 * One node:http server: /graphql goes straight to Yoga (HTTP) or graphql-ws (upgrade), the hottest
 * REST routes to the REST fast path (rest/fast-path.ts), everything else to Express. Yoga is never
 * mounted behind Express.
 */
export async function buildApp(options: { config?: Config; overrides?: ContainerOverrides } = {}): Promise<App> {
  const config = options.config ?? loadConfig();
  const container = await buildContainer(config, options.overrides);
  const metrics = createMetrics();
  // The entrances get services, config, logger and the front door: never the store, bus or adapters.
  const edge: Edge = { services: container.services, config, logger: container.logger, door: container.door };
  const rest = createRestApp(edge, metrics);
  const restFastPath = createRestFastPath(edge, metrics);
  const { yoga, handle: graphqlHttp } = createGraphQLHttp(edge);
  const isGraphQL = (url: string | undefined) => url === '/graphql' || !!url?.startsWith('/graphql?');

  // GraphQL requests get the same access log line and metrics as REST ones, without Express.
  const logGraphQL = accessLog(container.logger, metrics) as unknown as (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
  const server = createServer((req, res) => {
    if (isGraphQL(req.url)) return logGraphQL(req, res, () => serveGraphQLHttp(graphqlHttp, req, res));
    if (!restFastPath.serve(req, res)) rest(req, res);
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 30_000;

  const graphqlWs = attachGraphQLWebSocket({ edge, yoga, mask: (error) => maskGraphQLError(error, edge), maxPayload: 100 * 1024 });
  const trackingSockets = attachTrackingSockets({ edge });
  const courierSockets = attachCourierSockets({ edge });
  server.on('upgrade', (req, socket: Socket, head) => {
    if (graphqlWs.handles(req.url ?? '')) {
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
          container.logger.info({ port, store: container.store.kind, redis: Boolean(container.redis) }, 'listening');
          startSandboxSimulator(container).then(
            (started) => {
              simulator = started;
              webhookWorker = startWebhookWorker(container);
              reconciler = startDispatchReconciler(container);
              retention = startRetention(container);
              resolve({ port, url: `http://127.0.0.1:${port}` });
            },
            reject,
          );
        });
      }),
    stop: () =>
      (stopping ??= (async () => {
        const background = Promise.all([simulator?.stop(), reconciler?.stop(), retention?.stop()]);
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await Promise.all([graphqlWs.close(), trackingSockets.close(), courierSockets.close()]);
        const grace = new Promise<void>((resolve) => setTimeout(resolve, config.shutdownGraceMs).unref());
        await Promise.race([closed, grace]);
        server.closeAllConnections();
        await Promise.all([webhookWorker?.stop(), background]);
        await container.close();
        container.logger.flush();
      })()),
  };
}
