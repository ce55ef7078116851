import { lookup, type LookupAddress } from 'node:dns';
import { promises as dns } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isPrivateAddress } from '../../domain/webhooks/address-policy.js';
import type { SendResult, WebhookSender } from '../../ports/webhook-sender.js';

/** A DNS lookup that refuses private destinations: applied to the address the socket will use. */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, Object.assign({}, options, { all: true }), (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as LookupAddress[];
    const blocked = list.find((a) => isPrivateAddress(a.address));
    if (blocked || list.length === 0) {
      return callback(Object.assign(new Error(`refused: ${hostname} resolves to a private address`), { code: 'EPRIVATE' }), '', 0);
    }
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
};

/** Node's http(s) client: no redirects (a 3xx is just a failed attempt), a hard timeout, the body discarded. */
export function createHttpWebhookSender(): WebhookSender {
  return {
    async resolve(host) {
      try {
        return (await dns.lookup(host, { all: true })).map((a) => a.address);
      } catch {
        return [];
      }
    },
    send({ url, headers, body, timeoutMs, allowPrivate }) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      return new Promise<SendResult>((resolve) => {
        let target: URL;
        try {
          target = new URL(url);
        } catch {
          return resolve({ error: 'invalid URL', latencyMs: 0 });
        }
        if (!allowPrivate && isIpLiteral(target.hostname) && isPrivateAddress(stripBrackets(target.hostname))) {
          return resolve({ error: 'refused: private address', latencyMs: 0 });
        }
        const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
        const req = request(
          target,
          {
            method: 'POST',
            headers: Object.assign({}, headers, { 'content-length': Buffer.byteLength(body) }),
            ...(!allowPrivate && { lookup: publicOnlyLookup }),
            agent: false,
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, latencyMs: elapsed() }));
            res.on('error', () => resolve({ statusCode: res.statusCode ?? 0, latencyMs: elapsed() }));
          },
        );
        const timer = setTimeout(() => req.destroy(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
        req.on('error', (error) => resolve({ error: error.message.slice(0, 300), latencyMs: elapsed() }));
        req.on('close', () => clearTimeout(timer));
        req.end(body);
      });
    },
  };
}

const stripBrackets = (host: string) => host.replace(/^\[|\]$/g, '');
const isIpLiteral = (host: string) => /^[\d.]+$/.test(host) || host.startsWith('[');
