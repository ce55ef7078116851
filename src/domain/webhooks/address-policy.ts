import { BlockList, isIP } from 'node:net';
import type { WebhookReach } from '../../ports/webhook-sender.js';

/** Addresses a production webhook may never reach: private, loopback, link-local, CGNAT, multicast, reserved. */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32], ['64:ff9b::', 96], ['100::', 64],
] as const) blocked.addSubnet(net, prefix, 'ipv6');

/** Whether the address is in the list; IPv4-mapped IPv6 forms count as their IPv4 address. `notIp`: the answer for a string that is no address. */
function listed(list: BlockList, address: string, notIp: boolean): boolean {
  const family = isIP(address);
  if (family === 0) return notIp;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return list.check(mapped[1]!, 'ipv4');
  return list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export const isPrivateAddress = (address: string): boolean => listed(blocked, address, true);

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

export const isLoopbackAddress = (address: string): boolean => listed(loopback, address, false);

/** Whether a webhook with this reach may connect to the address. */
export function isReachable(address: string, reach: WebhookReach): boolean {
  if (reach === 'private' || !isPrivateAddress(address)) return true;
  return reach === 'loopback' && isLoopbackAddress(address);
}
