/**
 * Shared set-up for the webhook suites: real HTTP receivers on loopback (node:http servers the test
 * controls), the webhook REST API of one key, app settings that make retries fast, and polling.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { api, type TestApp } from '../helpers/app.js';
import { checkWebhookDelivery } from '../helpers/wire-validator.js';
import { startOrdersApp } from '../orders/support.js';

/** Loopback receivers in test mode; retry delays shrunk (1 min → 12 ms … 780 min → 9.4 s); a fast poll for retries. */
export const FAST_WEBHOOKS = {
  WEBHOOK_SANDBOX_ALLOW_PRIVATE: 'true',
  WEBHOOK_RETRY_SCALE: '0.0002',
  WEBHOOK_POLL_MS: '50',
} as const;

export function startWebhooksApp(env: Record<string, string> = {}, options: Omit<Parameters<typeof startOrdersApp>[0], 'env'> = {}): Promise<TestApp> {
  return startOrdersApp({ ...options, env: { ...FAST_WEBHOOKS, ...env } });
}

export interface Receipt {
  /** The webhook-id header. */
  id: string;
  timestamp: string;
  signature: string;
  event: string;
  /** The request path (one receiver can serve several endpoints). */
  path: string;
  method: string;
  /** The raw body, exactly as received. */
  body: string;
  headers: Record<string, string>;
  /** What the receiver answered (0: it never answered). */
  status: number;
}

/** What the receiver answers: a status, a status with headers, or 'hang' (never answers). */
export type Answer = number | { status: number; headers?: Record<string, string> } | 'hang';
export type Responder = (receipt: Omit<Receipt, 'status'>, previous: Receipt[]) => Answer;

export interface Receiver {
  url: string;
  port: number;
  receipts: Receipt[];
  /** Replaces how the receiver answers (default: 200 to everything). */
  respond(responder: Responder): void;
  /** Receipts of one webhook-id. */
  of(id: string): Receipt[];
  /** Receipts the receiver acknowledged with a 2xx. */
  acknowledged(): Receipt[];
  close(): Promise<void>;
}

/** A node:http server on 127.0.0.1 that records every request (port 0: a free one). */
export async function startReceiver(options: { port?: number } = {}): Promise<Receiver> {
  const receipts: Receipt[] = [];
  let responder: Responder = () => 200;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
      const seen = {
        id: headers['webhook-id'] ?? '',
        timestamp: headers['webhook-timestamp'] ?? '',
        signature: headers['webhook-signature'] ?? '',
        event: headers['webhook-event'] ?? '',
        path: req.url ?? '/',
        method: req.method ?? '',
        body: Buffer.concat(chunks).toString('utf8'),
        headers,
      };
      if (seen.id) checkWebhookDelivery(headers, seen.body);
      const previous = receipts.filter((r) => r.id === seen.id);
      const answer = responder(seen, previous);
      if (answer === 'hang') {
        receipts.push({ ...seen, status: 0 });
        return;
      }
      const { status, headers: extra } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
      receipts.push({ ...seen, status });
      res.writeHead(status, { 'content-type': 'text/plain', ...extra });
      res.end('ok');
    });
  });
  server.listen(options.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    receipts,
    respond(next) {
      responder = next;
    },
    of: (id) => receipts.filter((r) => r.id === id),
    acknowledged: () => receipts.filter((r) => r.status >= 200 && r.status < 300),
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/** Polls `check` until it returns a truthy value (returned) or the time is up (throws with the last value). */
export async function waitFor<T>(check: () => T | Promise<T>, options: { timeoutMs?: number; intervalMs?: number; what?: string } = {}): Promise<Truthy<T>> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  let last: T | undefined;
  for (;;) {
    last = await check();
    if (last) return last as Truthy<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${options.what ?? 'a condition'} (last: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 25));
  }
}

/** The webhook REST API with one API key. */
export function webhooksApi(baseUrl: string, key: string) {
  const at = (path: string) => `${baseUrl}/api/v1${path}`;
  const id = (value: string) => encodeURIComponent(value);
  return {
    create: (body: unknown) => api(at('/webhooks'), { key, body }),
    list: () => api(at('/webhooks'), { key }),
    publicKeys: () => api(at('/webhooks/public-keys'), { key }),
    get: (endpointId: string) => api(at(`/webhooks/${id(endpointId)}`), { key }),
    update: (endpointId: string, body: unknown) => api(at(`/webhooks/${id(endpointId)}`), { key, method: 'PATCH', body }),
    remove: (endpointId: string) => api(at(`/webhooks/${id(endpointId)}`), { key, method: 'DELETE' }),
    deliveries: (query: Record<string, string> = {}) => api(at(`/webhooks/deliveries?${new URLSearchParams(query).toString()}`), { key }),
    delivery: (deliveryId: string) => api(at(`/webhooks/deliveries/${id(deliveryId)}`), { key }),
    redeliver: (deliveryId: string) => api(at(`/webhooks/deliveries/${id(deliveryId)}/redeliver`), { key, method: 'POST' }),
    redeliverFailed: (body: unknown) => api(at('/webhooks/deliveries/redeliver-failed'), { key, body }),
  };
}

export type WebhooksApi = ReturnType<typeof webhooksApi>;

/** Every delivery in the log (all pages), newest first. */
export async function allDeliveries(hooks: WebhooksApi, query: Record<string, string> = {}): Promise<Array<Record<string, any>>> { // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed JSON
  const out = [];
  let after: string | null = null;
  do {
    const res = await hooks.deliveries({ ...query, limit: '100', ...(after && { after }) });
    if (res.status !== 200) throw new Error(`GET /webhooks/deliveries answered ${res.status}: ${JSON.stringify(res.body)}`);
    out.push(...res.body.deliveries);
    after = res.body.next_cursor;
  } while (after);
  return out;
}
