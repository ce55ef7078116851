/**
 * The tracking benchmark's load generator, run as a child process of bench/tracking.ts (never in
 * a server's process): N subscriber sockets spread over loopback addresses, and M couriers
 * reporting positions at a fixed rate (open loop: a report is sent when it is due, whether or not
 * earlier ones were answered). Talks to its parent over IPC: it receives a TrackingClientConfig,
 * announces the measured window's start and end (the parent samples the server's CPU then), and
 * sends back a TrackingClientResult.
 *
 * Latency: each report's position is unique per courier (the latitude's 6th decimal carries the
 * report's sequence number, ~0.1 m a step), and this process keeps the time it sent each one.
 * A position frame received on a socket is matched to its report by that exact latitude; latency
 * = receive time − send time, both read from this process's monotonic clock. It covers the whole
 * path: the report's HTTP request, the server's work, the fan-out, and this process's own event
 * loop (which also drives the load, so its delays count against the server).
 */
import { Agent, request } from 'node:http';
import { WebSocket } from 'ws';

export interface TrackingClientConfig {
  target: 'app' | 'raw';
  /** http://127.0.0.1:port of the server under test. */
  url: string;
  /**
   * One entry per subscriber socket: its path and the courier whose positions it receives. With
   * `graphql`, the socket speaks graphql-transport-ws and starts that one subscription; the
   * position is read from `data.<field>.location` of its `next` messages.
   */
  subscriptions: Array<{ path: string; courier: number; graphql?: { query: string; variables: Record<string, unknown>; field: string } }>;
  /** How the app's couriers report: POST /api/v1/couriers/me/location (default) or frames on /api/v1/couriers/me/live. */
  reportVia?: 'http' | 'socket';
  /** One entry per courier: its token (app) and where it stands. */
  couriers: Array<{ token: string | null; base: { lat: number; lng: number } }>;
  /** Local addresses for the subscriber sockets (127.0.x.y); `socketsPerAddress` on each. */
  localAddresses: string[];
  socketsPerAddress: number;
  reportsPerSecondPerCourier: number;
  warmupS: number;
  durationS: number;
  /** Seconds after the last report during which late frames are still counted. */
  drainS: number;
}

export interface TrackingClientResult {
  connectSeconds: number;
  sockets: number;
  /** Frames received during the measured window (any report), per second. */
  receivedPerSecond: number;
  receivedInWindow: number;
  /** Reports sent in the window × sockets watching their courier; and how many of those arrived (by the end of the drain). */
  expected: number;
  delivered: number;
  latency: { p50: number; p90: number; p99: number; p999: number; max: number; mean: number };
  reportsSent: number;
  /** Answers (HTTP responses or acks) that arrived during the window, whenever their report was sent: the server's report throughput. */
  reportsAnsweredInWindow: number;
  reportsOk: number;
  reportsNon2xx: number;
  reportErrors: number;
  /** Answer time of the reports: HTTP response or socket ack (app only). */
  reportLatency: { p50: number; p99: number } | null;
  socketsClosed: number;
  /** This process's CPU during the window, in cores. */
  cpu: number;
  rssMiB: number;
}

type Message = { type: 'start'; config: TrackingClientConfig };

const send = (message: object) => process.send?.(message);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The latitude of a tracking socket's position frame. */
function socketLatitude(text: string): number | undefined {
  const message = JSON.parse(text) as { type: string; lat?: number };
  return message.type === 'position' ? message.lat : undefined;
}

/** The latitude of a graphql-ws `next` message whose data carries a location (status updates carry none). */
function graphqlLatitude(text: string, field: string): number | undefined {
  const message = JSON.parse(text) as { type: string; payload?: { data?: Record<string, { location?: { lat: number } | null } | null> } };
  return message.type === 'next' ? (message.payload?.data?.[field]?.location?.lat ?? undefined) : undefined;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
const round1 = (n: number) => Math.round(n * 10) / 10;

async function run(config: TrackingClientConfig): Promise<TrackingClientResult> {
  const wsUrl = config.url.replace(/^http/, 'ws');
  const courierCount = config.couriers.length;
  const watchers = new Array<number>(courierCount).fill(0);
  for (const s of config.subscriptions) watchers[s.courier]!++;
  /** Per courier: latitude sent → send time (ms, performance.now()). */
  const sent = config.couriers.map(() => new Map<number, number>());

  let windowStart = Infinity;
  let windowEnd = Infinity;
  let receivedInWindow = 0;
  let delivered = 0;
  let expected = 0;
  let socketsClosed = 0;
  let measuring = false;
  const latencies: number[] = [];

  // --- Subscriber sockets: connected in bounded parallel, each ready after its first frame --------
  const connectStarted = performance.now();
  const sockets: WebSocket[] = [];
  let nextSubscription = 0;
  const connectOne = (index: number) =>
    new Promise<void>((resolve, reject) => {
      const { path, courier, graphql } = config.subscriptions[index]!;
      const localAddress = config.localAddresses[Math.floor(index / config.socketsPerAddress)]!;
      const ws = graphql
        ? new WebSocket(wsUrl + path, 'graphql-transport-ws', { localAddress, perMessageDeflate: false })
        : new WebSocket(wsUrl + path, { localAddress, perMessageDeflate: false });
      sockets.push(ws);
      let ready = false;
      if (graphql) ws.once('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: {} })));
      ws.on('message', (data) => {
        const now = performance.now();
        if (!ready) {
          // The tracking socket is ready with its first frame (the snapshot); graphql-ws once acknowledged and subscribed.
          if (graphql) {
            if ((JSON.parse(String(data)) as { type: string }).type !== 'connection_ack') return;
            ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: graphql.query, variables: graphql.variables } }));
          }
          ready = true;
          return resolve();
        }
        const lat = graphql ? graphqlLatitude(String(data), graphql.field) : socketLatitude(String(data));
        if (lat === undefined) return;
        if (now >= windowStart && now < windowEnd) receivedInWindow++;
        const sentAt = sent[courier]!.get(lat);
        if (sentAt !== undefined && sentAt >= windowStart && sentAt < windowEnd) {
          delivered++;
          latencies.push(now - sentAt);
        }
      });
      ws.on('error', (error) => {
        if (!ready) reject(new Error(`socket ${index} (${localAddress} → ${path}): ${error.message}`));
      });
      ws.on('close', (code, reason) => {
        if (!ready) reject(new Error(`socket ${index} closed before its first frame: ${code} ${String(reason)}`));
        else if (measuring) socketsClosed++;
      });
    });
  await Promise.all(
    Array.from({ length: 100 }, async () => {
      while (nextSubscription < config.subscriptions.length) await connectOne(nextSubscription++);
    }),
  );
  const connectSeconds = (performance.now() - connectStarted) / 1000;
  send({ type: 'connected', sockets: sockets.length, seconds: connectSeconds });

  // --- Couriers: HTTP reports, or one publishing socket each (raw, or the app's courier socket) ---
  const agent = new Agent({ keepAlive: true, maxSockets: 100 });
  const publishers: WebSocket[] = [];
  const overSocket = config.target === 'raw' || config.reportVia === 'socket';
  let reportsSent = 0;
  let reportsOk = 0;
  let reportsNon2xx = 0;
  let reportErrors = 0;
  const reportLatencies: number[] = [];
  let answeredInWindow = 0;
  const countAnswer = () => {
    const now = performance.now();
    if (now >= windowStart && now < windowEnd) answeredInWindow++;
  };
  /** Per courier: the send time of each report awaiting its ack (courier socket only), by frame id. */
  const awaitingAck = config.couriers.map(() => new Map<number, { sentAt: number; inWindow: boolean }>());
  const onAck = (courier: number) => (data: unknown) => {
    const frame = JSON.parse(String(data)) as { type: string; id?: number };
    const pending = frame.id === undefined ? undefined : awaitingAck[courier]!.get(frame.id);
    if (!pending) return;
    awaitingAck[courier]!.delete(frame.id!);
    countAnswer();
    if (frame.type === 'ack') reportsOk++;
    else reportsNon2xx++;
    if (pending.inWindow) reportLatencies.push(performance.now() - pending.sentAt);
  };
  for (let i = 0; overSocket && i < courierCount; i++) {
    const ws =
      config.target === 'raw'
        ? new WebSocket(`${wsUrl}/pub`, { perMessageDeflate: false })
        : new WebSocket(`${wsUrl}/api/v1/couriers/me/live`, { perMessageDeflate: false, headers: { authorization: `Bearer ${config.couriers[i]!.token}` } });
    publishers.push(ws);
    await new Promise<void>((resolve, reject) => {
      // The app's socket is ready with its `ready` frame; the raw server once open.
      if (config.target === 'raw') ws.once('open', () => resolve());
      else ws.once('message', () => resolve());
      ws.once('error', reject);
    });
    if (config.target === 'app') ws.on('message', onAck(i));
    ws.on('close', () => {
      if (measuring) socketsClosed++;
    });
  }
  const { hostname, port } = new URL(config.url);

  function report(courier: number, seq: number): void {
    const { base, token } = config.couriers[courier]!;
    const lat = Math.round((base.lat + seq * 1e-6) * 1e6) / 1e6;
    const sentAt = performance.now();
    sent[courier]!.set(lat, sentAt);
    const inWindow = sentAt >= windowStart && sentAt < windowEnd;
    if (inWindow) expected += watchers[courier]!;
    reportsSent++;
    if (config.target === 'raw') {
      publishers[courier]!.send(JSON.stringify({ courier, lat, lng: base.lng }));
      reportsOk++;
      return;
    }
    if (overSocket) {
      awaitingAck[courier]!.set(seq, { sentAt, inWindow });
      publishers[courier]!.send(JSON.stringify({ type: 'position', id: seq, lat, lng: base.lng }));
      return;
    }
    const body = JSON.stringify({ lat, lng: base.lng });
    const req = request(
      {
        agent, hostname, port, method: 'POST', path: '/api/v1/couriers/me/location',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}` },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          countAnswer();
          if (res.statusCode === 200) reportsOk++;
          else reportsNon2xx++;
          if (inWindow) reportLatencies.push(performance.now() - sentAt);
        });
      },
    );
    req.on('error', () => reportErrors++);
    req.end(body);
  }

  // --- Open-loop schedule: report k is due at k / (couriers × rate) seconds --------------------
  const perSecond = courierCount * config.reportsPerSecondPerCourier;
  const started = performance.now();
  windowStart = started + config.warmupS * 1000;
  windowEnd = windowStart + config.durationS * 1000;
  let cpuAtStart: NodeJS.CpuUsage | null = null;
  let due = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      if (!measuring && now >= windowStart && cpuAtStart === null) {
        measuring = true;
        cpuAtStart = process.cpuUsage();
        send({ type: 'window-start' });
      }
      if (now >= windowEnd) {
        clearInterval(timer);
        return resolve();
      }
      const target = Math.floor(((now - started) / 1000) * perSecond);
      for (; due < target; due++) report(due % courierCount, Math.floor(due / courierCount));
    }, 5);
  });
  const cpu = process.cpuUsage(cpuAtStart ?? undefined);
  send({ type: 'window-end' });
  measuring = false;
  await sleep(config.drainS * 1000);

  const sorted = Float64Array.from(latencies).sort();
  const sortedReports = Float64Array.from(reportLatencies).sort();
  const result: TrackingClientResult = {
    connectSeconds: round1(connectSeconds),
    sockets: sockets.length,
    receivedPerSecond: Math.round(receivedInWindow / config.durationS),
    receivedInWindow,
    expected,
    delivered,
    latency: {
      p50: round1(percentile(sorted, 50)),
      p90: round1(percentile(sorted, 90)),
      p99: round1(percentile(sorted, 99)),
      p999: round1(percentile(sorted, 99.9)),
      max: round1(sorted.length ? sorted[sorted.length - 1]! : 0),
      mean: round1(sorted.length ? latencies.reduce((a, b) => a + b, 0) / sorted.length : 0),
    },
    reportsSent,
    reportsAnsweredInWindow: answeredInWindow,
    reportsOk,
    reportsNon2xx,
    reportErrors,
    reportLatency: config.target === 'app' ? { p50: round1(percentile(sortedReports, 50)), p99: round1(percentile(sortedReports, 99)) } : null,
    socketsClosed,
    cpu: Math.round(((cpu.user + cpu.system) / 1e6 / config.durationS) * 100) / 100,
    rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20),
  };
  for (const ws of [...sockets, ...publishers]) ws.terminate();
  agent.destroy();
  return result;
}

process.on('message', (message: Message) => {
  if (message.type !== 'start') return;
  run(message.config).then(
    (result) => {
      send({ type: 'result', result });
      process.disconnect();
    },
    (error: unknown) => {
      send({ type: 'failed', error: (error as Error).message });
      process.disconnect();
    },
  );
});
