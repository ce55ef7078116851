import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/** The proxies Express trusts ('loopback, linklocal, uniquelocal' in rest/app.ts): the same rule here. */
const TRUSTED_PROXIES = new BlockList();
TRUSTED_PROXIES.addSubnet('127.0.0.0', 8, 'ipv4');
TRUSTED_PROXIES.addSubnet('169.254.0.0', 16, 'ipv4');
TRUSTED_PROXIES.addSubnet('10.0.0.0', 8, 'ipv4');
TRUSTED_PROXIES.addSubnet('172.16.0.0', 12, 'ipv4');
TRUSTED_PROXIES.addSubnet('192.168.0.0', 16, 'ipv4');
TRUSTED_PROXIES.addAddress('::1', 'ipv6');
TRUSTED_PROXIES.addSubnet('fe80::', 10, 'ipv6');
TRUSTED_PROXIES.addSubnet('fc00::', 7, 'ipv6');

function normalize(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

function isTrusted(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && TRUSTED_PROXIES.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The client address of an upgrade request (which never passes through Express): the socket's
 * peer, or — when the peer is a trusted proxy — the right-most untrusted X-Forwarded-For entry.
 */
export function clientIpOf(req: IncomingMessage): string {
  let ip = normalize(req.socket.remoteAddress ?? 'unknown');
  const header = req.headers['x-forwarded-for'];
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((s) => normalize(s.trim()))
    .filter(Boolean);
  while (isTrusted(ip) && forwarded.length > 0) {
    const next = forwarded.pop()!;
    if (isIP(next) === 0) break;
    ip = next;
  }
  return ip;
}
