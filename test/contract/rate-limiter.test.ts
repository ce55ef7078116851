import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryRateLimiter, createRedisRateLimiter } from '../../src/adapters/rate-limiter.js';
import { createNotificationBudget } from '../../src/domain/notifications/budget.js';
import type { RateLimiter } from '../../src/ports/rate-limiter.js';
import { acquireRedis } from '../helpers/redis.js';

/** One contract for both adapters of the RateLimiter port (the front door's budgets and lockouts). */
function describeRateLimiterContract(name: string, make: () => RateLimiter) {
  describe(`RateLimiter contract: ${name}`, () => {
    const key = () => `test:${randomUUID()}`;

    it('allows up to the limit in a window, then refuses with the time left', async () => {
      const limiter = make();
      const k = key();
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await limiter.consume({ key: k, limitPerMin: 3 }));
      expect(answers.map((a) => a.allowed)).toEqual([true, true, true, false]);
      expect(answers.map((a) => a.remaining)).toEqual([2, 1, 0, 0]);
      expect(answers[3]!.resetMs).toBeGreaterThan(0);
      expect(answers[3]!.resetMs).toBeLessThanOrEqual(60_000);
    });

    it('keeps keys and limits apart', async () => {
      const limiter = make();
      const [a, b] = [key(), key()];
      await limiter.consume({ key: a, limitPerMin: 1 });
      expect((await limiter.consume({ key: a, limitPerMin: 1 })).allowed).toBe(false);
      expect((await limiter.consume({ key: b, limitPerMin: 1 })).allowed).toBe(true);
    });

    it('windows other than a minute reset after their own length', async () => {
      const limiter = make();
      const k = key();
      await limiter.consume({ key: k, limitPerMin: 1, windowSeconds: 900 });
      const refused = await limiter.consume({ key: k, limitPerMin: 1, windowSeconds: 900 });
      expect(refused.allowed).toBe(false);
      expect(refused.resetMs).toBeGreaterThan(60_000);
    });

    it('peek reports the state without taking from the bucket', async () => {
      const limiter = make();
      const k = key();
      expect(await limiter.peek({ key: k, limitPerMin: 2 })).toMatchObject({ allowed: true, remaining: 2 });
      await limiter.consume({ key: k, limitPerMin: 2 });
      expect(await limiter.peek({ key: k, limitPerMin: 2 })).toMatchObject({ allowed: true, remaining: 1 });
      expect(await limiter.peek({ key: k, limitPerMin: 2 })).toMatchObject({ allowed: true, remaining: 1 });
      await limiter.consume({ key: k, limitPerMin: 2 });
      expect(await limiter.peek({ key: k, limitPerMin: 2 })).toMatchObject({ allowed: false, remaining: 0 });
    });

    it('consume reserves atomically: 30 at once with a limit of 5 admit exactly 5', async () => {
      const limiter = make();
      const k = key();
      const answers = await Promise.all(Array.from({ length: 30 }, () => limiter.consume({ key: k, limitPerMin: 5, windowSeconds: 900 })));
      expect(answers.filter((a) => a.allowed)).toHaveLength(5);
    });

    it('the notification budget over it: the number\'s cap, then the merchant\'s; a refusal spends nothing', async () => {
      const budget = createNotificationBudget({ limiter: make(), caps: { numberHourly: 2, numberDaily: 3, merchantHourly: 3, merchantDaily: 10 } });
      const merchantId = `mch_${randomUUID()}`;
      // Each limiter made here has a key prefix of its own: fixed numbers do not meet other cases'.
      const phone = '+56933330001';
      const takes = [];
      for (let i = 0; i < 3; i++) takes.push(await budget.take({ merchantId, recipient: phone }));
      expect(takes).toStrictEqual([null, null, 'number_hourly_cap']);
      // The refused message took nothing from the merchant: one more number fits, the next does not.
      expect(await budget.take({ merchantId, recipient: '+56933330002' })).toBeNull();
      expect(await budget.take({ merchantId, recipient: '+56933330003' })).toBe('merchant_hourly_cap');
    });

    it('the notification budget\'s daily caps: a number\'s, then a merchant\'s', async () => {
      const budget = createNotificationBudget({ limiter: make(), caps: { numberHourly: 50, numberDaily: 1, merchantHourly: 50, merchantDaily: 2 } });
      const merchantId = `mch_${randomUUID()}`;
      expect(await budget.take({ merchantId, recipient: '+56922220001' })).toBeNull();
      expect(await budget.take({ merchantId, recipient: '+56922220001' })).toBe('number_daily_cap');
      expect(await budget.take({ merchantId, recipient: '+56922220002' })).toBeNull();
      expect(await budget.take({ merchantId, recipient: '+56922220003' })).toBe('merchant_daily_cap');
    });

    it('reward gives back one unit: a reservation that did not count', async () => {
      const limiter = make();
      const k = key();
      const lock = { key: k, limitPerMin: 2, windowSeconds: 900 };
      await limiter.consume(lock);
      await limiter.consume(lock);
      expect((await limiter.consume(lock)).allowed).toBe(false);
      // The refused unit and one reservation given back: one unit free again, no more.
      await Promise.all([limiter.reward(lock), limiter.reward(lock)]);
      expect(await limiter.peek(lock)).toMatchObject({ allowed: true, remaining: 1 });
      expect((await limiter.consume(lock)).allowed).toBe(true);
      expect((await limiter.consume(lock)).allowed).toBe(false);
    });
  });
}

describeRateLimiterContract('memory', () => createMemoryRateLimiter({ keyPrefix: `rl-${randomUUID()}` }));

const { redis: server, skipReason } = await acquireRedis();
if (!server) {
  describe('RateLimiter contract: redis', () => {
    it.skip(`skipped: ${skipReason}`, () => {});
  });
} else {
  const clients: Redis[] = [];
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await server.stop();
  });
  describeRateLimiterContract('redis', () => {
    const redis = new Redis(server.url);
    clients.push(redis);
    return createRedisRateLimiter({ redis, keyPrefix: `rl-${randomUUID()}` });
  });

  it('redis: two nodes share a number\'s notification cap', async () => {
    const [one, two] = [new Redis(server.url), new Redis(server.url)];
    clients.push(one, two);
    const prefix = `rl-${randomUUID()}`;
    const caps = { numberHourly: 2, numberDaily: 30, merchantHourly: 100, merchantDaily: 1000 };
    const a = createNotificationBudget({ limiter: createRedisRateLimiter({ redis: one, keyPrefix: prefix }), caps });
    const b = createNotificationBudget({ limiter: createRedisRateLimiter({ redis: two, keyPrefix: prefix }), caps });
    const n = { merchantId: 'mch_shared', recipient: '+56911112222' };
    expect([await a.take(n), await b.take(n), await a.take(n), await b.take(n)]).toStrictEqual([null, null, 'number_hourly_cap', 'number_hourly_cap']);
    // No phone number in Redis: the number's keys are its digest.
    expect((await one.keys(`${prefix}*`)).some((k) => k.includes('56911112222'))).toBe(false);
  });

  it('redis: two nodes share one budget', async () => {
    const [one, two] = [new Redis(server.url), new Redis(server.url)];
    clients.push(one, two);
    const prefix = `rl-${randomUUID()}`;
    const a = createRedisRateLimiter({ redis: one, keyPrefix: prefix });
    const b = createRedisRateLimiter({ redis: two, keyPrefix: prefix });
    await a.consume({ key: 'shared', limitPerMin: 2 });
    await b.consume({ key: 'shared', limitPerMin: 2 });
    expect((await a.consume({ key: 'shared', limitPerMin: 2 })).allowed).toBe(false);
    expect((await b.peek({ key: 'shared', limitPerMin: 2 })).allowed).toBe(false);
  });
}
