/**
 * The sending budget of recipient notifications (issue #39 item 3, SMS/WhatsApp pumping): live
 * messages only to the merchant's allowed countries (Chile unless an operator approves more), caps
 * per number and per merchant, no message for an order cancelled within a minute of its creation,
 * every refusal in the outbox with its reason (REST and GraphQL), on /metrics and in a warn line
 * without the number. The app's clock is moved by hand past the one-minute hold; the rest is real:
 * the worker, a Twilio-compatible server on loopback, the SQLite store on disk.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { ADMIN_TOKEN, api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { memoryStream } from '../helpers/memory-log.js';
import { expectOk, formB, startOrdersApp } from '../orders/support.js';
import { startProviderServer } from './support.js';

/** The ITU's international networks (+882 16: the number range of the finding). */
const FOREIGN = '+882161234567';
type Row = { id: string; order_id: string; moment: string; channel: string; status: string; block_reason: string | null; to: string };

describe('recipient notifications within a budget', () => {
  const logs = memoryStream();
  let offset = 0;
  const clock = { now: () => new Date(Date.now() + offset) };
  let t: TestApp;
  let sms: Awaited<ReturnType<typeof startProviderServer>>;
  const v1 = (path: string) => `${t.url}/api/v1${path}`;

  beforeAll(async () => {
    sms = await startProviderServer(() => ({ status: 201, body: { sid: 'SM1' } }));
    t = await startOrdersApp({
      env: {
        NOTIFY_POLL_MS: '50',
        TWILIO_BASE_URL: sms.url, TWILIO_ACCOUNT_SID: 'AC42', TWILIO_AUTH_TOKEN: 'twilio-secret', TWILIO_FROM: '+56221234567',
        NOTIFY_CAP_NUMBER_HOURLY: '3', NOTIFY_CAP_NUMBER_DAILY: '30', NOTIFY_CAP_MERCHANT_HOURLY: '5', NOTIFY_CAP_MERCHANT_DAILY: '100',
      },
      clock,
      logger: createLogger({ level: 'info', destination: logs.stream }),
    });
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    await sms?.close();
  });

  /** A merchant notifying on the given channels at creation and cancellation. */
  async function notifyingMerchant(name: string, channels = ['sms', 'whatsapp']): Promise<MerchantCredentials> {
    const m = await t.createMerchant({ name });
    expectOk(await api(v1('/notifications/settings'), { method: 'PUT', key: m.liveKey, body: { channels, moments: ['created', 'failed'] } }));
    return m;
  }
  const order = async (key: string, phone: string) => expectOk(await api(v1('/orders'), { key, body: formB({ customer_phone: phone }) }), 201).body as { booking_id: string };
  const outbox = async (key: string, orderId?: string): Promise<Row[]> =>
    expectOk(await api(v1(`/notifications?limit=100${orderId ? `&order_id=${orderId}` : ''}`), { key })).body.notifications;
  /** Past the one-minute hold of new orders' messages, then until the worker has settled every live row. */
  async function settle(key: string): Promise<Row[]> {
    offset += 61_000;
    let rows: Row[] = [];
    // Up to a minute on a busy machine: the worker polls every 50 ms.
    for (const until = Date.now() + 60_000; Date.now() < until; ) {
      rows = await outbox(key);
      if (rows.every((n) => n.status !== 'pending')) return rows;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`still pending: ${JSON.stringify(rows.map((n) => n.status))}`);
  }
  const sentTo = (phone: string) => sms.requests.filter((r) => new URLSearchParams(r.body).get('To') === phone).length;

  it('a live order to +882 queues no message: blocked with the country reason at once; test mode says what live would block', async () => {
    const m = await notifyingMerchant('Tienda Pumping');
    const live = await order(m.liveKey, FOREIGN);
    const rows = await outbox(m.liveKey, live.booking_id);
    expect(rows.map((n) => [n.channel, n.status, n.block_reason])).toStrictEqual([['whatsapp', 'blocked', 'country_not_allowed'], ['sms', 'blocked', 'country_not_allowed']]);
    await settle(m.liveKey);
    expect(sentTo(FOREIGN)).toBe(0);

    // The same through GraphQL.
    const graph = await gql(t.url, `{ notifications(orderId: "${live.booking_id}") { ... on QueryNotificationsSuccess { data { nodes { status blockReason } } } } }`, { key: m.liveKey });
    expect(graph.body.data.notifications.data.nodes).toStrictEqual([{ status: 'blocked', blockReason: 'country_not_allowed' }, { status: 'blocked', blockReason: 'country_not_allowed' }]);

    // Test mode keeps its sandbox and tells what live mode would refuse.
    const sandbox = await order(m.testKey, FOREIGN);
    const test = await outbox(m.testKey, sandbox.booking_id);
    expect(test.map((n) => [n.status, n.block_reason])).toStrictEqual([['sandboxed', 'country_not_allowed'], ['sandboxed', 'country_not_allowed']]);
  });

  it('+56 still sends; an operator approves another country (GraphQL) and its numbers are sent to', async () => {
    const m = await notifyingMerchant('Tienda Chile', ['sms']);
    const chilean = await order(m.liveKey, '+56 9 7000 0001');
    await settle(m.liveKey);
    expect((await outbox(m.liveKey, chilean.booking_id)).map((n) => [n.status, n.block_reason])).toStrictEqual([['sent', null]]);
    expect(sentTo('+56970000001')).toBe(1);

    const approve = await gql(
      t.url,
      `mutation ($id: ID!) { adminSetNotificationCountries(merchantId: $id, countries: ["+882", "56"]) {
        ... on MutationAdminSetNotificationCountriesSuccess { data { notificationCountries } } ... on AppError { code } } }`,
      { key: ADMIN_TOKEN, variables: { id: m.merchantId } },
    );
    expect(approve.body.data.adminSetNotificationCountries.data.notificationCountries).toStrictEqual(['56', '882']);
    const bad = await gql(t.url, `mutation ($id: ID!) { adminSetNotificationCountries(merchantId: $id, countries: ["chile"]) { ... on AppError { code } } }`, { key: ADMIN_TOKEN, variables: { id: m.merchantId } });
    expect(bad.body.data.adminSetNotificationCountries.code).toBe('VALIDATION_ERROR');
    // A merchant's key reaches no admin field.
    const merchantTry = await gql(t.url, `mutation ($id: ID!) { adminSetNotificationCountries(merchantId: $id, countries: ["882"]) { __typename } }`, { key: m.liveKey, variables: { id: m.merchantId } });
    expect(merchantTry.body.data?.adminSetNotificationCountries ?? null).toBeNull();

    // The merchant reads its countries (REST and GraphQL), never sets them.
    expect(expectOk(await api(v1('/notifications/settings'), { key: m.liveKey })).body.settings.allowed_countries).toStrictEqual(['56', '882']);
    const own = await gql(t.url, '{ notificationSettings { ... on QueryNotificationSettingsSuccess { data { allowedCountries } } } }', { key: m.testKey });
    expect(own.body.data.notificationSettings.data.allowedCountries).toStrictEqual(['56', '882']);
    const foreign = await order(m.liveKey, '+882161230000');
    await settle(m.liveKey);
    expect((await outbox(m.liveKey, foreign.booking_id)).map((n) => n.status)).toStrictEqual(['sent']);
    expect(sentTo('+882161230000')).toBe(1);
  });

  it('the per-number cap: the fourth message to one number in the hour is blocked (NOTIFY_CAP_NUMBER_HOURLY=3)', async () => {
    const m = await notifyingMerchant('Tienda Repetida', ['sms']);
    for (let i = 0; i < 4; i++) await order(m.liveKey, '+56 9 7000 0002');
    const rows = await settle(m.liveKey);
    expect(rows.map((n) => n.status).sort()).toStrictEqual(['blocked', 'sent', 'sent', 'sent']);
    expect(rows.find((n) => n.status === 'blocked')!.block_reason).toBe('number_hourly_cap');
    expect(sentTo('+56970000002')).toBe(3);
  });

  it('the per-merchant cap: the sixth message of a merchant in the hour is blocked, whatever the numbers (NOTIFY_CAP_MERCHANT_HOURLY=5)', async () => {
    const m = await notifyingMerchant('Tienda Masiva', ['sms']);
    for (let i = 0; i < 6; i++) await order(m.liveKey, `+56 9 7100 000${i}`);
    const rows = await settle(m.liveKey);
    expect(rows.map((n) => n.status).sort()).toStrictEqual(['blocked', 'sent', 'sent', 'sent', 'sent', 'sent']);
    expect(rows.find((n) => n.status === 'blocked')!.block_reason).toBe('merchant_hourly_cap');
  });

  it('an order cancelled within a minute of its creation gets no message: neither "created" nor the cancellation', async () => {
    const m = await notifyingMerchant('Tienda Arrepentida', ['sms']);
    const kept = await order(m.liveKey, '+56 9 7200 0001');
    const cancelled = await order(m.liveKey, '+56 9 7200 0002');
    expect((await api(v1(`/orders/${cancelled.booking_id}/cancel`), { key: m.liveKey, body: { reason: 'prueba' } })).status).toBe(200);
    // Nothing goes out during the hold.
    await new Promise((r) => setTimeout(r, 300));
    expect(sentTo('+56972000001') + sentTo('+56972000002')).toBe(0);
    await settle(m.liveKey);
    expect((await outbox(m.liveKey, cancelled.booking_id)).map((n) => [n.moment, n.status, n.block_reason])).toStrictEqual([
      ['failed', 'blocked', 'cancelled_early'],
      ['created', 'blocked', 'cancelled_early'],
    ]);
    expect(sentTo('+56972000002')).toBe(0);
    expect((await outbox(m.liveKey, kept.booking_id)).map((n) => [n.moment, n.status])).toStrictEqual([['created', 'sent']]);
  });

  it('/metrics counts the refusals by reason and channel; each is a warn line without the number', async () => {
    const res = await fetch(`${t.url}/metrics`);
    const text = await res.text();
    const count = (reason: string, channel: string) => Number(new RegExp(`^notifications_blocked_total\\{reason="${reason}",channel="${channel}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    expect(count('country_not_allowed', 'sms')).toBe(1);
    expect(count('country_not_allowed', 'whatsapp')).toBe(1);
    expect(count('number_hourly_cap', 'sms')).toBe(1);
    expect(count('merchant_hourly_cap', 'sms')).toBe(1);
    expect(count('cancelled_early', 'sms')).toBe(2);

    await new Promise((r) => setTimeout(r, 400)); // the logger's batch flushes every 250 ms
    const lines = logs.text().split('\n').filter((l) => l.includes('"notification blocked"')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(6);
    expect(lines.every((l) => l.level === 40 && l.alert === 'notification_blocked')).toBe(true);
    expect(lines.find((l) => l.reason === 'country_not_allowed')).toMatchObject({ channel: expect.any(String), to: '+882…67' });
    const all = logs.text();
    for (const secret of [FOREIGN, FOREIGN.slice(1), '161234567', '56970000002', '970000002']) expect(all, secret).not.toContain(secret);
  });
});
