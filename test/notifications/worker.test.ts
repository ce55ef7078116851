import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite/store.js';
import { createNotificationWorker, notificationRetryDelayMs, withoutRecipient } from '../../src/domain/notifications/worker.js';
import type { Notifier, OutgoingMessage, SendOutcome } from '../../src/ports/notifier.js';
import type { Store } from '../../src/ports/store.js';
import { notification } from '../contract/notification-store.contract.js';
import { storeMerchant } from '../contract/fixtures.js';

/** A clock the case moves by hand. */
function manualClock(start: string) {
  let now = Date.parse(start);
  return { now: () => new Date(now), advance: (ms: number) => void (now += ms) };
}

/** A notifier that answers from a script and records what it was asked. */
function scriptedNotifier(answers: SendOutcome[]): Notifier & { sent: OutgoingMessage[] } {
  const sent: OutgoingMessage[] = [];
  return { channels: ['sms', 'email'], sent, async send(message) {
    sent.push(message);
    return answers.shift() ?? { ok: true, providerId: null };
  } };
}

describe('notification worker: retries with backoff, gives up after N attempts', () => {
  let store: Store;
  beforeEach(() => {
    store = createSqliteStore({ file: ':memory:' });
  });
  afterEach(() => store.close());

  it('retries a refused send after the backoff, then fails it after maxAttempts, the recipient taken out of the error', async () => {
    const m = await storeMerchant(store);
    const clock = manualClock('2026-11-28T10:00:00.000Z');
    const n = notification({ merchantId: m, orderId: 'bk_1', nextAttemptAt: clock.now().toISOString(), recipient: '+56912345678' });
    await store.notifications.insert([n]);
    const failure = { ok: false as const, error: "HTTP 503: The 'To' number +56912345678 is busy" };
    const notifier = scriptedNotifier([failure, failure, failure]);
    const worker = createNotificationWorker({ store, notifier, clock, config: { maxAttempts: 3, retryScale: 1, leaseMs: 60_000, batch: 10 } });

    expect((await worker.poll({ owner: 'a' })).map((r) => r.outcome)).toStrictEqual(['retry']);
    expect(await worker.poll({ owner: 'a' })).toStrictEqual([]); // not due before its backoff
    clock.advance(2 * 60_000);
    expect((await worker.poll({ owner: 'a' })).map((r) => r.outcome)).toStrictEqual(['retry']);
    clock.advance(6 * 60_000);
    const last = await worker.poll({ owner: 'a' });
    expect(last.map((r) => [r.outcome, r.attempt])).toStrictEqual([['failed', 3]]);
    const [stored] = await store.notifications.list({ merchantId: m, mode: 'live', limit: 10 });
    expect(stored).toMatchObject({ status: 'failed', attempts: 3, nextAttemptAt: null });
    expect(stored!.lastError).toBe("HTTP 503: The 'To' number [destinatario] is busy");
    expect(JSON.stringify(last)).not.toContain('12345678');
    clock.advance(86_400_000);
    expect(await worker.poll({ owner: 'a' })).toStrictEqual([]);
    expect(notifier.sent).toHaveLength(3);
  });

  it('a permanent refusal fails at once; a sandboxed row is never sent', async () => {
    const m = await storeMerchant(store);
    const clock = manualClock('2026-11-28T10:00:00.000Z');
    await store.notifications.insert([
      notification({ merchantId: m, orderId: 'bk_2', nextAttemptAt: clock.now().toISOString() }),
      notification({ merchantId: m, orderId: 'bk_3', mode: 'test' }),
    ]);
    const notifier = scriptedNotifier([{ ok: false, error: 'HTTP 400: invalid number', permanent: true }]);
    const worker = createNotificationWorker({ store, notifier, clock, config: { maxAttempts: 5, retryScale: 1, leaseMs: 60_000, batch: 10 } });
    expect((await worker.poll({ owner: 'a' })).map((r) => r.outcome)).toStrictEqual(['failed']);
    expect(notifier.sent.map((s) => s.to)).toHaveLength(1);
    expect((await store.notifications.list({ merchantId: m, mode: 'test', limit: 10 }))[0]!.status).toBe('sandboxed');
  });

  it('backoff grows per retry within ±10 %; errors lose the recipient in any spelling', () => {
    expect(notificationRetryDelayMs(1, 1, () => 0.5)).toBe(60_000);
    expect(notificationRetryDelayMs(2, 1, () => 0.5)).toBe(300_000);
    expect(notificationRetryDelayMs(9, 1, () => 0.5)).toBe(180 * 60_000);
    expect(withoutRecipient('bad 56912345678 and +56912345678', '+56912345678')).toBe('bad [destinatario] and [destinatario]');
    expect(withoutRecipient('550 <ana@example.cl> unknown', 'ana@example.cl')).toBe('550 <[destinatario]> unknown');
  });
});
