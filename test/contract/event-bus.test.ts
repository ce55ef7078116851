import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createMemoryEventBus } from '../../src/adapters/event-bus/memory.js';
import { createRedisEventBus, type RedisEventBus } from '../../src/adapters/event-bus/redis.js';
import { createLogger } from '../../src/logger.js';
import { acquireRedis, hasRedisServerBinary, startRedisServer, type RedisServer } from '../helpers/redis.js';
import { batchMessage, describeEventBusContract, record, waitFor } from './event-bus.contract.js';

describeEventBusContract('memory', async () => createMemoryEventBus());

const { redis: server, skipReason } = await acquireRedis();

/** Collects the bus's log lines, so a test can check what an operator would see. */
function captureLogger() {
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
  return { logger, lines };
}
const quiet = createLogger({ level: 'silent' });

// A unique channel per case, so cases (and a shared REDIS_URL) never hear each other.
const channel = () => `test:bus:${randomUUID()}`;

if (!server) {
  describe('EventBus contract: redis', () => {
    it.skip(`skipped: ${skipReason}`, () => {});
  });
} else {
  afterAll(async () => {
    await server.stop();
  });

  describeEventBusContract('redis', async () => {
    const bus = createRedisEventBus({ url: server.url, channel: channel(), logger: quiet });
    await waitFor('the bus to connect', () => bus.stats().connected);
    return bus;
  });

  describe('EventBus redis: two nodes on one redis-server', () => {
    const open: RedisEventBus[] = [];
    afterEach(async () => {
      await Promise.all(open.splice(0).map((bus) => bus.close()));
    });
    const node = async (url: string, ch: string, logger = quiet) => {
      const bus = createRedisEventBus({ url, channel: ch, logger });
      open.push(bus);
      await waitFor('the bus to connect', () => bus.stats().connected);
      return bus;
    };

    it('a message published on A reaches B once, in order, and A’s own subscriber once', async () => {
      const ch = channel();
      const [a, b] = [await node(server.url, ch), await node(server.url, ch)];
      const onA = record(a);
      const onB = record(b);
      const sent = Array.from({ length: 50 }, (_, i) => `a${i}`);
      for (const id of sent) await a.publish(batchMessage(id));
      await waitFor('B to get all of A’s messages', () => onB.ids.length >= sent.length);

      // B's reply travels through Redis after A's messages did, so once it reaches A, A's own
      // copies have come back from Redis too: any duplicate would already be recorded.
      await b.publish(batchMessage('b-reply'));
      await waitFor('B’s reply on A', () => onA.ids.includes('b-reply'));
      expect(onA.ids).toStrictEqual([...sent, 'b-reply']);
      await a.publish(batchMessage('a-reply'));
      await waitFor('A’s reply on B', () => onB.ids.includes('a-reply'));
      expect(onB.ids).toStrictEqual([...sent, 'b-reply', 'a-reply']);

      expect(a.stats()).toMatchObject({ received: 1, dropped: 0, connected: true });
      expect(b.stats()).toMatchObject({ received: sent.length + 1, dropped: 0, connected: true });
      await waitFor('A’s publishes acknowledged', () => a.stats().published === sent.length + 1);
    });

    it('nodes on different channels do not hear each other', async () => {
      const a = await node(server.url, channel());
      const b = await node(server.url, channel());
      const onB = record(b);
      await a.publish(batchMessage('other-channel'));
      await b.publish(batchMessage('own'));
      await waitFor('B’s own message', () => onB.ids.includes('own'));
      await waitFor('A’s publish acknowledged', () => a.stats().published === 1);
      expect(onB.ids).toStrictEqual(['own']);
      expect(b.stats().received).toBe(0);
    });

    const restartable = hasRedisServerBinary();
    it.skipIf(!restartable)('Redis restarted mid-test: local delivery goes on, then B hears A again on the same buses', async () => {
      let own: RedisServer | null = await startRedisServer();
      try {
        const ch = channel();
        const log = captureLogger();
        const a = await node(own.url, ch, log.logger);
        const b = await node(own.url, ch);
        const onA = record(a);
        const onB = record(b);
        await a.publish(batchMessage('before'));
        await waitFor('B to hear A before the restart', () => onB.ids.includes('before'));

        const { port } = own;
        await own.stop();
        own = null;
        await waitFor('both nodes to notice Redis is gone', () => !a.stats().connected && !b.stats().connected);
        // Messages from other nodes may be missed now: whoever derives state from them reads the store.
        expect([a.connected(), b.connected()]).toEqual([false, false]);

        await expect(a.publish(batchMessage('while-down'))).resolves.toBeUndefined();
        await waitFor('local delivery while Redis is down', () => onA.ids.includes('while-down'));
        await waitFor('the send counted as dropped', () => a.stats().dropped === 1);
        expect(log.lines.some((l) => l.level === 40 && l.msg.includes('Redis unavailable'))).toBe(true);

        own = await startRedisServer(port);
        await waitFor('both nodes to resubscribe', () => a.stats().connected && b.stats().connected, 15_000);
        expect([a.connected(), b.connected()]).toEqual([true, true]);

        await a.publish(batchMessage('after'));
        await waitFor('B to hear A after the restart', () => onB.ids.includes('after'));
        await b.publish(batchMessage('b-after'));
        await waitFor('A to hear B after the restart', () => onA.ids.includes('b-after'));
        expect(onB.ids).toStrictEqual(['before', 'after', 'b-after']);
        expect(onA.ids).toStrictEqual(['before', 'while-down', 'after', 'b-after']);
        expect(a.stats().dropped).toBe(1);
      } finally {
        await own?.stop();
      }
    });

    it('publish never throws when Redis was never reachable, and local subscribers still hear it', async () => {
      const { freePort } = await import('../helpers/redis.js');
      const bus = createRedisEventBus({ url: `redis://127.0.0.1:${await freePort()}`, channel: channel(), logger: quiet });
      open.push(bus);
      const local = record(bus);
      await expect(bus.publish(batchMessage('lonely'))).resolves.toBeUndefined();
      await waitFor('local delivery', () => local.ids.includes('lonely'));
      await waitFor('the send counted as dropped', () => bus.stats().dropped === 1);
      expect(bus.stats()).toMatchObject({ published: 0, connected: false });
      expect(bus.connected()).toBe(false);
    });
  });
}
