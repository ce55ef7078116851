import { lookup, type LookupAddress } from 'node:dns';
import { promises as dns } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isReachable } from '../../domain/webhooks/address-policy.js';
import type { SendResult, WebhookReach, WebhookSender } from '../../ports/webhook-sender.js';

/** A DNS lookup that refuses destinations outside `reach`: applied to the address the socket will use. */
const lookupWithin = (reach: WebhookReach): LookupFunction => (hostname, options, callback) => {
  lookup(hostname, Object.assign({}, options, { all: true }), (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as LookupAddress[];
    const blocked = list.find((a) => !isReachable(a.address, reach));
    if (blocked || list.length === 0) {
      return callback(Object.assign(new Error(`refused: ${hostname} resolves to a private address`), { code: 'EPRIVATE' }), '', 0);
    }
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
};
const LOOKUPS = { public: lookupWithin('public'), loopback: lookupWithin('loopback') } as const;

/** An idle kept-alive connection is closed after this, before receivers' usual 5 s would close it. */
const IDLE_SOCKET_MS = 4_000;

/**
 * Connections are kept alive and reused (a new TCP connection, and TLS handshake, per delivery
 * cost more than the delivery). Each reach has its own pool: a socket is checked when it connects,
 * so one opened to a private address for the sandbox must never carry a live delivery to the same host.
 */
function connectionPools(): Record<WebhookReach, { http: HttpAgent; https: HttpsAgent }> {
  const options = { keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' as const };
  const within = (reach: 'public' | 'loopback') => Object.assign({}, options, { lookup: LOOKUPS[reach] });
  return {
    public: { http: new HttpAgent(within('public')), https: new HttpsAgent(within('public')) },
    loopback: { http: new HttpAgent(within('loopback')), https: new HttpsAgent(within('loopback')) },
    private: { http: new HttpAgent(options), https: new HttpsAgent(options) },
  };
}

/**
 * Node's http(s) client: no redirects (a 3xx is just a failed attempt), a hard timeout, the body
 * discarded, connections reused. A reused connection the receiver had closed meanwhile fails at
 * once (reset): the send is retried once on a new connection, as an idle-close race is not the
 * receiver failing (webhooks are at least once; receivers de-duplicate on webhook-id).
 */
export function createHttpWebhookSender(): WebhookSender & { close(): void } {
  const pools = connectionPools();
  return {
    async resolve(host) {
      try {
        return (await dns.lookup(host, { all: true })).map((a) => a.address);
      } catch {
        return [];
      }
    },
    send({ url, headers, body, timeoutMs, reach }) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        return Promise.resolve({ error: 'invalid URL', latencyMs: 0 });
      }
      if (isIpLiteral(target.hostname) && !isReachable(stripBrackets(target.hostname), reach)) {
        return Promise.resolve({ error: 'refused: private address', latencyMs: 0 });
      }
      const https = target.protocol === 'https:';
      const pool = pools[reach];
      const attempt = (fresh: boolean) =>
        new Promise<SendResult>((resolve) => {
          const req: ClientRequest = (https ? httpsRequest : httpRequest)(
            target,
            {
              method: 'POST',
              headers: Object.assign({}, headers, { 'content-length': Buffer.byteLength(body) }),
              ...(reach !== 'private' && { lookup: LOOKUPS[reach] }),
              agent: fresh ? false : https ? pool.https : pool.http,
            },
            (res) => {
              res.resume();
              res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, latencyMs: elapsed() }));
              res.on('error', () => resolve({ statusCode: res.statusCode ?? 0, latencyMs: elapsed() }));
            },
          );
          const timer = setTimeout(() => req.destroy(new Error(`timed out after ${timeoutMs} ms`)), Math.max(1, timeoutMs - elapsed()));
          req.on('error', (error: NodeJS.ErrnoException) => {
            if (!fresh && req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) return resolve(attempt(true));
            resolve({ error: error.message.slice(0, 300), latencyMs: elapsed() });
          });
          req.on('close', () => clearTimeout(timer));
          req.end(body);
        });
      return attempt(false);
    },
    close() {
      for (const pool of Object.values(pools)) {
        pool.http.destroy();
        pool.https.destroy();
      }
    },
  };
}

const stripBrackets = (host: string) => host.replace(/^\[|\]$/g, '');
const isIpLiteral = (host: string) => /^[\d.]+$/.test(host) || host.startsWith('[');
