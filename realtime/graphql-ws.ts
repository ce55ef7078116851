import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ExecutionArgs, GraphQLError } from 'graphql';
import { CloseCode, handleProtocols, makeServer, MessageType, stringifyMessage, type Context } from 'graphql-ws';
import type { YogaServerInstance } from 'graphql-yoga';
import { WebSocket, WebSocketServer } from 'ws';
import type { Edge } from '../src/edge/edge.js';
import { AppError, isAppError } from '../src/domain/errors.js';
import { directWriters, type DirectWriter } from '../src/domain/watch/direct.js';
import type { Caller, Credentials } from '../src/domain/front-door.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../src/domain/json-depth.js';
import { guardSocket, type FloodGuard } from './flood-guard.js';
import { startHeartbeat } from './heartbeat.js';
import { OPERATOR_COOKIE, OPERATOR_SCOPE, sessionFromCookie, upgradeFromSameOrigin } from '../src/edge/session-cookie.js';

/** Close codes beyond graphql-ws's own (4403 Forbidden: credentials refused or revoked). */
export const GRAPHQL_WS_CLOSE = { tooManyConnections: 4429, forbidden: CloseCode.Forbidden } as const;

interface Connection {
  credentials: Credentials;
  caller: Caller | null;
  /** Frees this socket's slot (by address until identified, then by credential). */
  releaseSlot: () => void;
  stopHolding: () => void;
  guard: FloodGuard | null;
  /** The console's session cookie sent on the upgrade, and whether the upgrade came from a page of this server. */
  cookieSession: string | undefined;
  /** The operators' session cookie (issue #29), used only when connection_init asks for `scope: 'operator'`. */
  operatorCookieSession: string | undefined;
  sameOrigin: boolean;
}

/** What graphql-ws's context carries about its socket (`ctx.extra`). */
interface SocketExtra {
  socket: WebSocket;
  request: IncomingMessage;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any server and user context: only getEnveloped is used
type EnvelopedServer = Pick<YogaServerInstance<any, any>, 'getEnveloped'>;
type Enveloped = ReturnType<EnvelopedServer['getEnveloped']>;
interface RootValue {
  execute: Enveloped['execute'];
  subscribe: Enveloped['subscribe'];
}

/**
 * graphql-ws on the /graphql upgrade, executed through Yoga's own envelop (the recipe graphql-yoga
 * documents): parse and validation limits (graphql-armor), error masking, the compiled-query cache
 * and the session guard apply exactly as over HTTP. The front door admits each socket (a slot per
 * address until it is identified, then per credential), identifies it from connection_init's
 * payload (`{ authorization: "Bearer …" }` or `{ apiKey }`), takes every operation from the
 * caller's budget, caps operations per socket, and closes the socket (4403) when its credentials
 * stop admitting it. Every write goes through the socket's flood guard (realtime/flood-guard.ts):
 * pings and refused operations are unpaid messages, a send buffer past the hard limit closes it.
 */
export function attachGraphQLWebSocket(options: {
  edge: Edge;
  yoga: EnvelopedServer;
  mask: (error: unknown) => GraphQLError;
  maxPayload: number;
}) {
  const { edge, yoga, mask } = options;
  const { door } = edge;
  const { heartbeatMs, softBufferBytes, hardBufferBytes } = edge.config.tracking;
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload, handleProtocols, autoPong: false });
  const connections = new WeakMap<WebSocket, Connection>();
  /** A refused operation: its error reply is an unpaid message of the socket. */
  const refuse = (connection: Connection | undefined, error: unknown): readonly GraphQLError[] => {
    connection?.guard?.takeUnpaid();
    return [mask(error)];
  };

  const server = makeServer<Record<string, unknown> | undefined, SocketExtra>(
    {
      onConnect: async (ctx) => {
        const connection = connections.get(ctx.extra.socket);
        if (!connection) return false;
        connection.credentials = door.credentialsFromParams(ctx.connectionParams, connection.credentials.address);
        const params = ctx.connectionParams as Record<string, unknown> | undefined;
        if (!connection.credentials.token && params?.scope === OPERATOR_SCOPE) {
          // The operator scope: its own cookie, the member cookie ignored (same-origin rule alike).
          if (connection.operatorCookieSession) {
            if (!connection.sameOrigin) return false;
            connection.credentials.operatorSession = connection.operatorCookieSession;
          }
        } else if (!connection.credentials.token && connection.cookieSession) {
          // The cookie authenticates only a socket opened by a page of this server (no cross-site WebSocket hijacking).
          if (!connection.sameOrigin) return false;
          connection.credentials.session = connection.cookieSession;
          const mode = (ctx.connectionParams as Record<string, unknown> | undefined)?.mode;
          connection.credentials.sessionMode = typeof mode === 'string' ? mode : undefined;
        }
        try {
          connection.caller = await door.frontDoor.identify(connection.credentials);
        } catch (error) {
          if (isAppError(error)) return false;
          throw error;
        }
        if (connection.caller.kind === 'anonymous') return true;
        const { credentials } = connection;
        const slot = door.sockets.takeCredentialSlot(credentials.token ?? (credentials.operatorSession ? `operator-session:${credentials.operatorSession}` : `session:${credentials.session}`));
        if (!slot) {
          ctx.extra.socket.close(GRAPHQL_WS_CLOSE.tooManyConnections, 'too many connections for these credentials');
          return false;
        }
        connection.releaseSlot();
        connection.releaseSlot = slot;
        connection.stopHolding = door.frontDoor.holdSession({
          credentials: connection.credentials,
          end: (reason) => ctx.extra.socket.close(GRAPHQL_WS_CLOSE.forbidden, `credentials no longer valid: ${reason.code}`),
        });
        return true;
      },
      onSubscribe: async (ctx, id, payload) => {
        const connection = connections.get(ctx.extra.socket);
        if (!connection?.caller) return refuse(connection, new AppError('INVALID_API_KEY', 'Credentials missing or invalid'));
        const allowed = door.sockets.subscriptionsAllowed(connection.caller);
        if (Object.keys(ctx.subscriptions).length > allowed) {
          return refuse(connection, new AppError('RATE_LIMITED', `At most ${allowed} operations may be open at once on one socket`));
        }
        if (exceedsJsonDepth(payload.variables) || exceedsJsonDepth(payload.extensions)) {
          return refuse(connection, new AppError('VALIDATION_ERROR', `variables and extensions may nest at most ${MAX_JSON_DEPTH} levels`));
        }
        let decision;
        try {
          decision = await door.frontDoor.admit(connection.caller);
        } catch (error) {
          return refuse(connection, error);
        }
        const doorEntry = { caller: connection.caller, decision, credentials: connection.credentials, overSocket: true };
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({ doorEntry, req: ctx.extra.request, params: payload });
        let document;
        try {
          document = parse(payload.query);
          // graphql-armor's limits throw from parse and from validation rules, as Yoga expects over HTTP.
          const errors = validate(schema, document);
          if (errors.length > 0) return errors;
        } catch (error) {
          return refuse(connection, error);
        }
        const rootValue: RootValue = { execute, subscribe };
        const contextValue = await contextFactory();
        if (connection.caller.kind === 'anonymous') directWriters.offer(contextValue, sharedNext(ctx, id, ctx.extra.socket, connection.guard!, softBufferBytes));
        return {
          schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue,
          rootValue,
        } satisfies ExecutionArgs;
      },
      execute: (args) => (args.rootValue as RootValue).execute(args),
      subscribe: (args) => (args.rootValue as RootValue).subscribe(args),
      // Results are masked inside the envelop; an error thrown by a stream (a revoked session) is masked here.
      onError: (_ctx, _id, _payload, errors) => errors.map((e) => mask(e).toJSON()),
    },
  );

  /**
   * graphql-ws on one socket, as graphql-ws's own `useServer` does it but without its keep-alive (the
   * heartbeat below pings) and without its console output: every write goes through the guard, a
   * failure (a write to a socket that died, a message handler that threw) is logged once per socket.
   */
  function open(ws: WebSocket, req: IncomingMessage, connection: Connection): void {
    const guard = guardSocket(ws, { kind: 'graphql-ws', hardBufferBytes, logger: edge.logger, account: () => accountOf(connection), takeSharedUnpaid: door.sockets.takeUnpaid });
    connection.guard = guard;
    const send = (data: string) => new Promise<void>((resolve) => void guard.send(data, resolve));
    const closed = server.opened(
      {
        protocol: ws.protocol,
        send,
        close: (code, reason) => ws.close(code, reason),
        onMessage: (handle) =>
          ws.on('message', (data) => {
            handle(String(data)).catch((error: unknown) => {
              if (ws.readyState !== WebSocket.OPEN) return guard.failed(error);
              edge.logger.error({ err: error }, 'graphql-ws message failed');
              ws.close(CloseCode.InternalServerError, 'Internal server error');
            });
          }),
        onPing: (payload) => (guard.takeUnpaid() ? send(stringifyMessage(payload ? { type: MessageType.Pong, payload } : { type: MessageType.Pong })) : undefined),
        onPong: () => void guard.takeUnpaid(),
      },
      { socket: ws, request: req },
    );
    ws.once('close', (code, reason) => void closed(code, String(reason)));
  }

  // Dead clients (no pong within a heartbeat) and stuck ones (send buffer past the hard limit) are
  // terminated, so they never hold memory or delay the bus; each subscription also keeps a bounded
  // number of pending events. Pinged a slice at a time, as the other sockets are.
  const beating = new Map<WebSocket, { ws: WebSocket; alive: boolean }>();
  const heartbeat = startHeartbeat({ everyMs: heartbeatMs, sockets: () => beating.values(), isStuck: (s) => s.ws.bufferedAmount > hardBufferBytes });

  return {
    wss,
    handles: (url: string) => url === '/graphql' || url.startsWith('/graphql?'),

    /** Admits the upgrade if its address has a socket slot left; the slot follows the socket until it closes. */
    handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
      const address = door.addressOf(req);
      const slot = door.sockets.takeAddressSlot(address);
      if (!slot) {
        return wss.handleUpgrade(req, socket, head, (ws) => ws.close(GRAPHQL_WS_CLOSE.tooManyConnections, 'too many connections from this address'));
      }
      const cookie = req.headers.cookie;
      const connection: Connection = {
        credentials: { address }, caller: null, releaseSlot: slot, stopHolding: () => {}, guard: null,
        cookieSession: sessionFromCookie(cookie), operatorCookieSession: sessionFromCookie(cookie, OPERATOR_COOKIE), sameOrigin: upgradeFromSameOrigin(req),
      };
      // On the raw socket: it closes whether or not the handshake completes.
      socket.once('close', () => {
        connection.releaseSlot();
        connection.stopHolding();
      });
      wss.handleUpgrade(req, socket, head, (ws) => {
        connections.set(ws, connection);
        const beat = { ws, alive: true };
        beating.set(ws, beat);
        ws.on('pong', () => (beat.alive = true));
        ws.on('close', () => beating.delete(ws));
        open(ws, req, connection);
      });
    },

    async close() {
      heartbeat.stop();
      for (const client of wss.clients) client.close(1001, 'server shutting down');
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/** Whose shared unpaid allowance a socket draws from: its address until it is identified, then its credential. */
function accountOf(connection: Connection): string {
  const { caller, credentials } = connection;
  if (!caller || caller.kind === 'anonymous') return credentials.address;
  if (credentials.token) return `token:${credentials.token}`;
  return credentials.operatorSession ? `operator-session:${credentials.operatorSession}` : `session:${credentials.session}`;
}

/**
 * Writes a shared result of operation `id` as graphql-ws's `next` message, the same text graphql-ws
 * writes for it (its payload is the result without errors), while the socket keeps up. Once the
 * operation is completed or the socket closing, results are dropped, as graphql-ws drops them.
 */
function sharedNext(ctx: Context<Record<string, unknown> | undefined, SocketExtra>, id: string, ws: WebSocket, guard: FloodGuard, softBufferBytes: number): DirectWriter {
  const head = `{"id":${JSON.stringify(id)},"type":"next","payload":`;
  return (payloadJson) => {
    if (!(id in ctx.subscriptions) || ws.readyState !== WebSocket.OPEN) return true;
    if (ws.bufferedAmount > softBufferBytes) return false;
    guard.send(`${head}${payloadJson}}`);
    return true;
  };
}
