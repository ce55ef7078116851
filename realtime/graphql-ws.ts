import { useServer } from 'graphql-ws/use/ws';
import { WebSocket, WebSocketServer } from 'ws';
import type { Container } from '../src/container.js';
import { isAppError } from '../src/domain/errors.js';
import { buildSchema } from '../schema/index.js';
import { maskGraphQLError, resolveGraphQLContext, type Credentials } from '../schema/yoga.js';

function credentialsFrom(connectionParams: unknown): Credentials {
  const params = (connectionParams ?? {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return {
    authorization: str(params.authorization) ?? str(params.Authorization),
    apiKey: str(params.apiKey) ?? str(params['x-api-key']),
    testMode: str(params.testMode),
  };
}

/**
 * graphql-ws on the /graphql upgrade. Credentials come in connection_init's payload
 * (`{ authorization: "Bearer …" }` or `{ apiKey }`); a bad credential closes the socket with 4403.
 */
export function attachGraphQLWebSocket(options: { container: Container; maxPayload: number }) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload });
  const disposable = useServer(
    {
      schema: buildSchema(),
      context: (ctx) => resolveGraphQLContext(options.container, credentialsFrom(ctx.connectionParams)),
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? Object.assign({}, result, { errors: result.errors.map((e) => maskGraphQLError(e, options.container).toJSON()) }) : undefined,
      onError: (_ctx, _id, _payload, errors) => errors.map((e) => maskGraphQLError(e, options.container).toJSON()),
      onConnect: async (ctx) => {
        try {
          await resolveGraphQLContext(options.container, credentialsFrom(ctx.connectionParams));
          return true;
        } catch (error) {
          if (isAppError(error)) return false;
          throw error;
        }
      },
    },
    wss,
  );
  // Dead clients (no pong within a heartbeat) and stuck ones (send buffer past the hard limit) are
  // terminated, so they never hold memory or delay the bus; each subscription also keeps at most
  // SUBSCRIPTION_BUFFER pending events (realtime/bus-iterator.ts).
  const { heartbeatMs, hardBufferBytes } = options.container.config.tracking;
  const answered = new WeakSet<WebSocket>();
  wss.on('connection', (ws) => {
    answered.add(ws);
    ws.on('pong', () => answered.add(ws));
  });
  const heartbeat = setInterval(() => {
    for (const ws of wss.clients) {
      if (ws.readyState !== WebSocket.OPEN) continue;
      if (!answered.has(ws) || ws.bufferedAmount > hardBufferBytes) {
        ws.terminate();
        continue;
      }
      answered.delete(ws);
      ws.ping();
    }
  }, heartbeatMs);
  heartbeat.unref();

  return {
    wss,
    handles: (url: string) => url === '/graphql' || url.startsWith('/graphql?'),
    async close() {
      clearInterval(heartbeat);
      for (const client of wss.clients) client.close(1001, 'server shutting down');
      await disposable.dispose();
    },
  };
}
