import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from '../../logger.js';
import type { BusMessage, EventBus } from '../../ports/event-bus.js';

export interface EventBusStats {
  /** Messages Redis accepted for the other nodes. */
  published: number;
  /** Messages from other nodes handed to the local handlers. */
  received: number;
  /** Messages the other nodes never got (Redis down or too many publishes in flight). */
  dropped: number;
  /** Publisher ready and subscriber (re)subscribed. */
  connected: boolean;
}

export interface RedisEventBus extends EventBus {
  stats(): EventBusStats;
}

/** What travels on the channel: the message and the node that published it. */
interface Envelope {
  node: string;
  message: BusMessage;
}

/**
 * Redis pub/sub bus: every node publishes on one channel and every node receives everything.
 *
 * Local handlers never depend on Redis: publish() hands the message to this node's handlers
 * directly and sends it to Redis tagged with this node's id; on receipt a node drops its own
 * messages. So local subscribers see each event exactly once, also while Redis is down, and
 * other nodes see it once when Redis is up. Sending is fire-and-forget: publish() resolves
 * without waiting for Redis; a failed send is counted and logged, never thrown into the domain
 * (state changes are persisted by the store; positions are superseded by the next report).
 *
 * Two connections: a subscribed connection may only run (P)SUBSCRIBE/PING/QUIT. After a
 * reconnect ioredis re-issues SUBSCRIBE itself (autoResubscribe, in its ready handler, before
 * the 'ready' event); a PING on 'ready' is answered after that SUBSCRIBE, so its reply marks the
 * subscriber live again. Messages published on other nodes while this one was cut off are lost:
 * that reply also calls the onResync handlers, which read the current state again.
 */
export function createRedisEventBus(options: {
  url: string;
  logger: Logger;
  /** Channel name; separate deployments sharing one Redis use different channels. */
  channel?: string;
  nodeId?: string;
  /** Sends awaiting Redis's reply beyond which new messages are dropped for the other nodes. */
  maxInFlight?: number;
  /** The subscriber is pinged this often; no reply within the same time drops the connection (half-open). */
  pingMs?: number;
}): RedisEventBus {
  const { url, logger, channel = 'exd:bus', nodeId = randomUUID(), maxInFlight = 10_000, pingMs = 5000 } = options;
  const log = logger.child({ component: 'event-bus', channel });
  const handlers = new Set<(message: BusMessage) => void>();
  const resyncHandlers = new Set<() => void>();
  const counts = { published: 0, received: 0, dropped: 0 };
  let subscribed = false;
  let inFlight = 0;
  let droppedThisOutage = 0;
  let closed = false;

  // Fails fast while Redis is away (as the container's connection does): publish never waits.
  const publisher = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 500,
    connectTimeout: 1000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  // The first SUBSCRIBE waits in the offline queue until Redis is reachable, however long that is.
  const subscriber = new Redis(url, {
    autoResubscribe: true,
    maxRetriesPerRequest: null,
    connectTimeout: 1000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });

  publisher.on('error', () => {}); // reported through dropped sends below
  publisher.on('ready', () => {
    if (droppedThisOutage > 0) log.info({ dropped: droppedThisOutage }, 'event bus: Redis back; messages dropped while it was away');
    droppedThisOutage = 0;
  });
  let everSubscribed = false;
  subscriber.on('error', () => {}); // reported on 'close' below, once per outage
  subscriber.on('close', () => {
    if (subscribed) log.warn('event bus: subscriber lost Redis; other nodes unheard until it returns');
    subscribed = false;
  });
  subscriber.on('ready', () => {
    subscriber.ping().then(
      () => {
        if (subscriber.status !== 'ready') return;
        const back = everSubscribed;
        subscribed = everSubscribed = true;
        if (back) {
          log.info('event bus: subscriber back; watchers resync');
          for (const handler of resyncHandlers) queueMicrotask(handler);
        }
      },
      () => {},
    );
  });
  subscriber.on('message', (_channel: string, raw: string) => {
    const envelope = parseEnvelope(raw);
    if (!envelope) return log.warn('event bus: malformed message ignored');
    if (envelope.node === nodeId) return;
    counts.received++;
    deliver(envelope.message);
  });
  subscriber.subscribe(channel).catch(() => {}); // rejects only when closed before Redis ever answered

  // A subscriber whose socket stays open but hears nothing (frozen Redis, a dropped NAT entry) is
  // not closed by the kernel for minutes: an unanswered PING drops it, and the reconnect resyncs.
  let pinging = false;
  const heartbeat = setInterval(() => {
    if (pinging || subscriber.status !== 'ready') return;
    pinging = true;
    let timer: NodeJS.Timeout | undefined;
    const silent = new Promise<'silent'>((resolve) => (timer = setTimeout(() => resolve('silent'), pingMs)));
    void Promise.race([subscriber.ping().catch(() => 'failed'), silent]).then((reply) => {
      clearTimeout(timer);
      pinging = false;
      if (reply !== 'silent' || closed || subscriber.status !== 'ready') return;
      log.warn({ pingMs }, 'event bus: subscriber silent; reconnecting');
      subscribed = false;
      subscriber.disconnect(true);
    });
  }, pingMs);
  heartbeat.unref();

  function deliver(message: BusMessage): void {
    for (const handler of handlers) {
      queueMicrotask(() => {
        try {
          handler(message);
        } catch {
          // a subscriber's failure is its own; the bus keeps delivering to the others
        }
      });
    }
  }

  function drop(reason: string): void {
    counts.dropped++;
    if (droppedThisOutage++ === 0) log.warn({ reason }, 'event bus: Redis unavailable; messages reach this node only');
  }

  return {
    async publish(message) {
      if (closed) return;
      deliver(message);
      if (inFlight >= maxInFlight) return drop('too many publishes in flight');
      inFlight++;
      publisher
        .publish(channel, JSON.stringify({ node: nodeId, message } satisfies Envelope))
        .then(
          () => void counts.published++,
          (error: Error) => drop(error.message),
        )
        .finally(() => inFlight--);
    },
    subscribe(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    onResync(handler) {
      resyncHandlers.add(handler);
      return () => resyncHandlers.delete(handler);
    },
    connected: () => !closed && subscribed,
    stats() {
      return Object.assign({}, counts, { connected: !closed && subscribed && publisher.status === 'ready' });
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      handlers.clear();
      resyncHandlers.clear();
      subscribed = false;
      await Promise.all([closeConnection(publisher), closeConnection(subscriber)]);
    },
  };
}

function parseEnvelope(raw: string): Envelope | null {
  try {
    const value = JSON.parse(raw) as Partial<Envelope> | null;
    if (typeof value?.node !== 'string' || typeof value.message?.type !== 'string') return null;
    return value as Envelope;
  } catch {
    return null;
  }
}

/** QUIT lets in-flight publishes finish; bounded, since a half-dead socket may never answer. */
async function closeConnection(connection: Redis): Promise<void> {
  if (connection.status === 'ready') {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, 1000)));
    await Promise.race([connection.quit().catch(() => {}), timeout]);
    clearTimeout(timer);
  }
  connection.disconnect();
}
