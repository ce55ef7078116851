import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressBucket, createClientAddressResolver, parseTrustProxy, type TrustProxy } from '../../src/edge/client-address.js';
import { loadConfig } from '../../src/config.js';
import { api, startTestApp, type TestApp } from '../helpers/app.js';

const request = (peer: string, forwardedFor?: string) =>
  ({ socket: { remoteAddress: peer }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } }) as unknown as IncomingMessage;
const trust = (value: string) => parseTrustProxy(value) as TrustProxy;

describe('client address: budget buckets', () => {
  it('IPv4 addresses are their own bucket; IPv4-mapped IPv6 is the IPv4 address', () => {
    expect(addressBucket('203.0.113.7')).toBe('203.0.113.7');
    expect(addressBucket('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('IPv6 addresses share their /64, whatever their textual form', () => {
    const bucket = addressBucket('2001:db8:1:2::1');
    expect(bucket).toBe('2001:db8:1:2::/64');
    for (const same of ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:0db8:0001:0002:0:0:0:9', '2001:DB8:1:2::abcd', '2001:db8:1:2::1%eth0']) {
      expect(addressBucket(same)).toBe(bucket);
    }
    expect(addressBucket('2001:db8:1:3::1')).not.toBe(bucket);
    expect(addressBucket('::1')).toBe('0:0:0:0::/64');
  });
});

describe('client address: TRUST_PROXY', () => {
  it('by default the peer is the client: X-Forwarded-For is ignored', () => {
    const resolve = createClientAddressResolver(trust(''));
    expect(resolve(request('127.0.0.1', '198.51.100.1'))).toBe('127.0.0.1');
    expect(resolve(request('10.0.0.5', '198.51.100.1'))).toBe('10.0.0.5');
  });

  it('a listed proxy names the client; entries it did not add are not believed', () => {
    const resolve = createClientAddressResolver(trust('10.0.0.0/8, 127.0.0.1'));
    expect(resolve(request('10.1.2.3', '198.51.100.1'))).toBe('198.51.100.1');
    // The client itself wrote 1.2.3.4; only the right-most entry comes from our proxy.
    expect(resolve(request('10.1.2.3', '1.2.3.4, 198.51.100.1'))).toBe('198.51.100.1');
    // Through two of our proxies.
    expect(resolve(request('127.0.0.1', '198.51.100.1, 10.9.9.9'))).toBe('198.51.100.1');
    // An untrusted peer is the client whatever it says.
    expect(resolve(request('192.0.2.1', '198.51.100.1'))).toBe('192.0.2.1');
    expect(resolve(request('10.1.2.3', 'not-an-ip'))).toBe('10.1.2.3');
  });

  it('a hop count trusts exactly that many proxies', () => {
    const resolve = createClientAddressResolver(trust('1'));
    expect(resolve(request('192.0.2.1', '1.2.3.4, 198.51.100.1'))).toBe('198.51.100.1');
    expect(createClientAddressResolver(trust('2'))(request('192.0.2.1', '1.2.3.4, 198.51.100.1'))).toBe('1.2.3.4');
  });

  it('IPv6 clients behind a proxy are bucketed per /64', () => {
    const resolve = createClientAddressResolver(trust('::1'));
    expect(resolve(request('::1', '2001:db8:aa:bb::1'))).toBe(resolve(request('::1', '2001:db8:aa:bb:1:2:3:4')));
  });

  it('a bad TRUST_PROXY fails at boot with a clear message', () => {
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/99' })).toThrow(/TRUST_PROXY: "10.0.0.0\/99" has an invalid prefix length/);
    expect(() => loadConfig({ TRUST_PROXY: 'proxy.example.com' })).toThrow(/TRUST_PROXY: "proxy.example.com" is not an IP address/);
  });
});

describe('client address: spoofed X-Forwarded-For buys no fresh budget (default TRUST_PROXY)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { PUBLIC_RATE_LIMIT_PER_MIN: '3' } });
  });
  afterAll(() => t.stop());

  it('every spoofed value draws from the one bucket of the real peer', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await api(`${t.url}/api/v1/health`, { headers: { 'x-forwarded-for': `203.0.113.${i}` } })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
