import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/**
 * Which peers may tell us the client's address through X-Forwarded-For (TRUST_PROXY):
 * none (the default), the first `hops` proxies whatever their address, or the listed addresses
 * and CIDR blocks.
 */
export type TrustProxy = { kind: 'none' } | { kind: 'hops'; hops: number } | { kind: 'list'; list: BlockList };

/** Parses TRUST_PROXY: empty/`false`/`none`, a hop count, or a comma list of addresses and CIDRs. */
export function parseTrustProxy(value: string | undefined): TrustProxy | string {
  const text = value?.trim() ?? '';
  if (text === '' || text === 'false' || text === 'none' || text === '0') return { kind: 'none' };
  if (/^\d+$/.test(text)) return { kind: 'hops', hops: Number(text) };
  const list = new BlockList();
  for (const entry of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [address, bits] = entry.split('/');
    const family = isIP(address ?? '');
    if (family === 0) return `"${entry}" is not an IP address or CIDR block`;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(address!, type);
    else {
      const prefix = Number(bits);
      if (!/^\d+$/.test(bits) || prefix > (family === 4 ? 32 : 128)) return `"${entry}" has an invalid prefix length`;
      list.addSubnet(address!, prefix, type);
    }
  }
  return { kind: 'list', list };
}

const unmapped = (address: string) => {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
};

/** The eight hextets of an IPv6 address (the textual forms Node hands us: compressed, maybe with a zone). */
function hextets(address: string): string[] {
  const [head = '', tail = ''] = address.split('%', 1)[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') ? (tail ? tail.split(':') : []) : [];
  const missing = 8 - left.length - right.length;
  return [...left, ...Array<string>(Math.max(0, missing)).fill('0'), ...right].map((h) => h.toLowerCase().replace(/^0+(?=.)/, ''));
}

/**
 * The key a client's budget is kept under: its IPv4 address, or its IPv6 /64 (one subscriber's
 * allocation: counting single IPv6 addresses would give each caller 2^64 buckets).
 */
export function addressBucket(address: string): string {
  const plain = unmapped(address);
  if (isIP(plain) !== 6) return plain;
  return `${hextets(plain).slice(0, 4).join(':')}::/64`;
}

export function isTrusted(trust: TrustProxy, address: string, hop: number): boolean {
  if (trust.kind === 'none') return false;
  if (trust.kind === 'hops') return hop < trust.hops;
  const family = isIP(address);
  return family !== 0 && trust.list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The client's address for any request or upgrade: the socket's peer, or — while the peer is a
 * trusted proxy — the next X-Forwarded-For entry from the right. Returned as its budget bucket.
 */
export function createClientAddressResolver(trust: TrustProxy): (req: IncomingMessage) => string {
  return (req) => {
    let address = unmapped(req.socket.remoteAddress ?? 'unknown');
    if (trust.kind !== 'none') {
      const header = req.headers['x-forwarded-for'];
      const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((s) => unmapped(s.trim()));
      for (let hop = 0; isTrusted(trust, address, hop) && forwarded.length > 0; hop++) {
        const next = forwarded.pop()!;
        if (isIP(next) === 0) break;
        address = next;
      }
    }
    return addressBucket(address);
  };
}
