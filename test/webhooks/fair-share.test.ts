/**
 * The webhook worker under load: bus traffic does not turn into store polls (wake-ups coalesced),
 * and one merchant's slow endpoints do not hold back another merchant's webhooks (fair share and
 * per-endpoint caps). The app runs in-process on SQLite; store polls are counted by wrapping the
 * store's claimDue, the only call a poll makes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { expectOk, formA, merchantApi } from '../orders/support.js';
import { startReceiver, startWebhooksApp, waitFor, webhooksApi, type Receiver } from './support.js';

const cleanup: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function app(env: Record<string, string>): Promise<TestApp> {
  const t = await startWebhooksApp({ RATE_LIMIT_PER_MIN: '1000000', ...env });
  cleanup.push(() => t.stop());
  return t;
}

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  // Closed before the app stops: its hanging requests then end at once instead of at the timeout.
  cleanup.push(() => r.close());
  return r;
}

/** Counts the store polls the worker makes (each poll is one claimDue). */
function countPolls(t: TestApp): { count: () => number } {
  const webhooks = t.app.container.store.webhooks;
  const claimDue = webhooks.claimDue.bind(webhooks);
  let count = 0;
  webhooks.claimDue = (options) => {
    count++;
    return claimDue(options);
  };
  return { count: () => count };
}

describe('webhook worker: coalesced wake-ups', () => {
  it('a flood of courier positions that wrote deliveries costs at most one store poll per WEBHOOK_MIN_POLL_MS, and no wake-up is lost', async () => {
    const minPollMs = 200;
    const t = await app({ WEBHOOK_MIN_POLL_MS: String(minPollMs), WEBHOOK_POLL_MS: '60000' });
    const r = await receiver();
    const m = await t.createMerchant({ name: 'Flooded' });
    expectOk(await webhooksApi(t.url, m.testKey).create({ url: `${r.url}/flood` }), 201);
    const polls = countPolls(t);
    const { bus } = t.app.container;

    const started = Date.now();
    const before = polls.count();
    let published = 0;
    for (let burst = 0; burst < 40; burst++) {
      await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          bus.publish({ type: 'courier.position', courierId: `c_${i}`, mode: 'test', location: { lat: -33.4, lng: -70.6 }, orderIds: [`o_${i}`], at: new Date().toISOString(), wroteWebhooks: true }),
        ),
      );
      published += 100;
      if (burst === 20) expectOk(await merchantApi(t, m.testKey).create(formA()), 201); // real work in the middle of the flood
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const elapsed = Date.now() - started;
    const during = polls.count() - before;
    expect(published).toBe(4000);
    // One poll may start at once, then at most one per interval (plus the one pending at the end).
    expect(during).toBeLessThanOrEqual(Math.ceil(elapsed / minPollMs) + 2);
    expect(during).toBeGreaterThan(0);
    // The order's webhook written during the flood is delivered: coalescing drops polls, not work.
    await waitFor(() => r.receipts.length >= 1, { what: 'the order webhook' });
    expect(r.receipts[0]!.event).toBe('order.status_changed');
  });
});

describe('webhook worker: fair share per merchant', () => {
  it('merchant A’s hanging endpoints hold at most its caps; merchant B’s webhook goes out within two polls while A’s still hang', async () => {
    const t = await app({
      WEBHOOK_TIMEOUT_MS: '30000', // A's requests hang for the whole case
      WEBHOOK_MERCHANT_CONCURRENCY: '6',
      WEBHOOK_ENDPOINT_CONCURRENCY: '2',
      WEBHOOK_MIN_POLL_MS: '20',
      WEBHOOK_POLL_MS: '60000',
    });
    const slow = await receiver();
    slow.respond(() => 'hang');
    const fast = await receiver();
    const a = await t.createMerchant({ name: 'Slow A' });
    const b = await t.createMerchant({ name: 'Fast B' });
    const hooksA = webhooksApi(t.url, a.testKey);
    for (let i = 0; i < 8; i++) expectOk(await hooksA.create({ url: `${slow.url}/a${i}` }), 201);
    expectOk(await webhooksApi(t.url, b.testKey).create({ url: `${fast.url}/b` }), 201);

    // 15 orders × 8 endpoints: 120 of A's deliveries due, each endpoint hanging.
    const ordersA = merchantApi(t, a.testKey);
    for (let i = 0; i < 15; i++) expectOk(await ordersA.create(formA()), 201);
    await waitFor(() => slow.receipts.length >= 6, { what: 'A’s first requests' });

    const polls = countPolls(t);
    // Counted when B's request arrives: once it is answered, the freed slot wakes the worker again.
    let pollsWhenSent = -1;
    fast.respond(() => {
      if (pollsWhenSent < 0) pollsWhenSent = polls.count();
      return 200;
    });
    const order = expectOk(await merchantApi(t, b.testKey).create(formA()), 201).body.booking_id as string;
    const receipt = await waitFor(() => fast.receipts.find((x) => x.body.includes(order)), { what: 'B’s webhook' });
    expect(receipt.status).toBe(200);
    // At most one poll was already in flight without B's delivery; the next one took it.
    expect(pollsWhenSent).toBeGreaterThan(0);
    expect(pollsWhenSent).toBeLessThanOrEqual(2);

    // A never had more than its caps in flight, across its endpoints, although 120 were due.
    expect(slow.receipts).toHaveLength(6);
    const perEndpoint = new Map<string, number>();
    for (const x of slow.receipts) perEndpoint.set(x.path, (perEndpoint.get(x.path) ?? 0) + 1);
    expect(Math.max(...perEndpoint.values())).toBeLessThanOrEqual(2);
    const log = await t.app.container.store.webhooks.listDeliveries({ merchantId: b.merchantId, mode: 'test', limit: 10 });
    expect(log.map((d) => [d.status, d.attempts])).toEqual([['delivered', 1]]);
  });
});

describe('webhook worker: bounded backlog', () => {
  it('an endpoint with WEBHOOK_BACKLOG_MAX deliveries pending gets the next ones as failed with the reason, visible in the log', async () => {
    const t = await app({ WEBHOOK_BACKLOG_MAX: '3', WEBHOOK_RETRY_SCALE: '1' }); // retries an hour away: failures stay pending
    const r = await receiver();
    r.respond(() => 500);
    const m = await t.createMerchant({ name: 'Backlog' });
    const hooks = webhooksApi(t.url, m.testKey);
    expectOk(await hooks.create({ url: `${r.url}/down` }), 201);
    const orders = merchantApi(t, m.testKey);
    for (let i = 0; i < 3; i++) expectOk(await orders.create(formA()), 201);
    await waitFor(() => r.receipts.length >= 3, { what: 'the first attempts' });
    for (let i = 0; i < 2; i++) expectOk(await orders.create(formA()), 201);

    const log = expectOk(await hooks.deliveries()).body.deliveries as Array<{ status: string; last_error: string | null }>;
    expect(log.map((d) => d.status).sort()).toEqual(['failed', 'failed', 'pending', 'pending', 'pending']);
    for (const d of log.filter((x) => x.status === 'failed')) expect(d.last_error).toBe('backlog full: 3 deliveries pending for this endpoint');
    // The overflow never reached the receiver.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(r.receipts).toHaveLength(3);
  });
});

describe('webhook worker: node capacity', () => {
  it('a node never has more than WEBHOOK_MAX_IN_FLIGHT requests open; a slot freed (a timeout) is used without waiting for the fallback poll', async () => {
    const t = await app({ WEBHOOK_MAX_IN_FLIGHT: '2', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_MIN_POLL_MS: '20', WEBHOOK_POLL_MS: '60000' });
    const r = await receiver();
    r.respond(() => 'hang');
    const m = await t.createMerchant({ name: 'Capacity' });
    const hooks = webhooksApi(t.url, m.testKey);
    for (let i = 0; i < 3; i++) expectOk(await hooks.create({ url: `${r.url}/e${i}` }), 201);
    expectOk(await merchantApi(t, m.testKey).create(formA()), 201); // 3 deliveries, one per endpoint
    await waitFor(() => r.receipts.length >= 2, { what: 'two requests' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(r.receipts).toHaveLength(2);
    expect(t.app.container.services.webhookWorker.inFlight()).toBe(2);
    // The two time out after 1 s: the third delivery goes out then (the fallback poll is a minute away).
    await waitFor(() => new Set(r.receipts.map((x) => x.id)).size === 3, { what: 'the third delivery' });
  });
});
