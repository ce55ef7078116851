import { afterEach, describe, expect, it } from 'vitest';
import type { BusMessage, EventBus } from '../../src/ports/event-bus.js';

/** Polls until check() is true; fails with what was awaited once the deadline passes. */
export async function waitFor(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A small, valid bus message told apart by its batch id. */
export function batchMessage(batchId: string): BusMessage {
  return { type: 'batch.created', batchId, merchantId: 'mer_contract', mode: 'test', orderIds: [], at: '2025-01-01T00:00:00.000Z' };
}

/** Subscribes a handler that records the batch ids it receives. */
export function record(bus: EventBus): { ids: string[]; unsubscribe: () => void } {
  const ids: string[] = [];
  const unsubscribe = bus.subscribe((message) => {
    if (message.type === 'batch.created') ids.push(message.batchId);
  });
  return { ids, unsubscribe };
}

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

/**
 * The behaviour every EventBus adapter must show; make returns a fresh bus per case. "Nothing
 * else arrived" is checked with a marker published after the message under test: one publisher's
 * messages arrive in order, so once the marker is in, anything before it would be too.
 */
export function describeEventBusContract(name: string, make: () => Promise<EventBus>): void {
  describe(`EventBus contract: ${name}`, () => {
    const open: EventBus[] = [];
    const fresh = async () => {
      const bus = await make();
      open.push(bus);
      return bus;
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((bus) => bus.close()));
    });

    it('is connected once made (the adapters make it so before the case starts)', async () => {
      expect((await fresh()).connected()).toBe(true);
    });

    it('delivers every message to every subscriber, once', async () => {
      const bus = await fresh();
      const subscribers = [record(bus), record(bus), record(bus)];
      await bus.publish(batchMessage('m1'));
      await bus.publish(batchMessage('end'));
      await waitFor('every subscriber to get both messages', () => subscribers.every((s) => s.ids.length >= 2));
      for (const s of subscribers) expect(s.ids).toStrictEqual(['m1', 'end']);
    });

    it('delivers a message whole, as published', async () => {
      const bus = await fresh();
      const received: BusMessage[] = [];
      bus.subscribe((message) => received.push(message));
      const message: BusMessage = {
        type: 'courier.position',
        courierId: 'cou_1',
        mode: 'live',
        location: { lat: -33.4175, lng: -70.6067 },
        orderIds: ['ord_1', 'ord_2'],
        at: '2025-01-01T12:00:00.000Z',
      };
      await bus.publish(message);
      await waitFor('the message', () => received.length === 1);
      expect(received[0]).toStrictEqual(message);
    });

    it('runs handlers off the publisher’s stack', async () => {
      const bus = await fresh();
      const s = record(bus);
      const published = bus.publish(batchMessage('m1'));
      expect(s.ids).toStrictEqual([]);
      await published;
      await waitFor('the message', () => s.ids.length === 1);
    });

    it('preserves one publisher’s order', async () => {
      const bus = await fresh();
      const s = record(bus);
      const sent = Array.from({ length: 200 }, (_, i) => `m${i}`);
      for (const id of sent) await bus.publish(batchMessage(id));
      await waitFor('all 200 messages', () => s.ids.length >= sent.length);
      expect(s.ids).toStrictEqual(sent);
    });

    it('stops delivering to a handler once it unsubscribes; the others keep receiving', async () => {
      const bus = await fresh();
      const leaving = record(bus);
      const staying = record(bus);
      await bus.publish(batchMessage('before'));
      await waitFor('the first message', () => leaving.ids.length === 1 && staying.ids.length === 1);

      leaving.unsubscribe();
      await bus.publish(batchMessage('after'));
      await bus.publish(batchMessage('end'));
      await waitFor('the marker', () => staying.ids.includes('end'));
      expect(leaving.ids).toStrictEqual(['before']);
      expect(staying.ids).toStrictEqual(['before', 'after', 'end']);
    });

    it('a throwing handler breaks neither the publisher nor the other handlers', async () => {
      const bus = await fresh();
      const first = record(bus);
      let thrown = 0;
      bus.subscribe(() => {
        thrown++;
        throw new Error('subscriber bug');
      });
      const last = record(bus);
      await bus.publish(batchMessage('m1'));
      await bus.publish(batchMessage('m2'));
      await waitFor('both messages everywhere', () => first.ids.length === 2 && last.ids.length === 2 && thrown === 2);
      expect(first.ids).toStrictEqual(['m1', 'm2']);
      expect(last.ids).toStrictEqual(['m1', 'm2']);
    });

    it('after close, publish resolves and nothing is delivered', async () => {
      const bus = await fresh();
      const s = record(bus);
      await bus.publish(batchMessage('before'));
      await waitFor('the first message', () => s.ids.length === 1);
      await bus.close();
      await expect(bus.publish(batchMessage('after'))).resolves.toBeUndefined();
      await turns(5);
      expect(s.ids).toStrictEqual(['before']);
      await bus.close(); // closing twice is harmless
    });
  });
}
