/**
 * Recipient notifications end to end (issue #28 item 7): settings through REST and GraphQL, test
 * mode filling the sandbox outbox (never sent) readable through both, tenants and modes apart, live
 * messages sent by the worker to a local Twilio-compatible server and a real SMTP process, a channel
 * without a provider failed at once, and the recipient's phone and email never in the logs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { memoryStream } from '../helpers/memory-log.js';
import { expectOk, formB, startOrdersApp } from '../orders/support.js';
import { decodeQuotedPrintable, startProviderServer, startSmtpSink, type SmtpSink } from './support.js';

const PHONE = '+56987654321';
const EMAIL = 'javiera.munoz@example.cl';
const ALL_MOMENTS = ['created', 'courier_assigned', 'on_the_way', 'delivered', 'failed'];

describe('recipient notifications through the API', () => {
  const logs = memoryStream();
  let t: TestApp;
  let m: MerchantCredentials;
  let other: MerchantCredentials;
  let sink: SmtpSink;
  let sms: Awaited<ReturnType<typeof startProviderServer>>;
  const v1 = (path: string) => `${t.url}/api/v1${path}`;

  beforeAll(async () => {
    sink = await startSmtpSink();
    sms = await startProviderServer(() => ({ status: 201, body: { sid: 'SM1' } }));
    t = await startOrdersApp({
      env: {
        NOTIFY_POLL_MS: '50',
        // Live messages go out at once here (the one-minute hold of new orders: budget.test.ts).
        NOTIFY_HOLD_SECONDS: '0',
        TWILIO_BASE_URL: sms.url, TWILIO_ACCOUNT_SID: 'AC42', TWILIO_AUTH_TOKEN: 'twilio-secret', TWILIO_FROM: '+56221234567',
        SMTP_URL: `smtp://127.0.0.1:${sink.port}`, SMTP_FROM: 'Avisos <avisos@envios.test>',
      },
      logger: createLogger({ level: 'debug', destination: logs.stream }),
    });
    m = await t.createMerchant({ name: 'Tienda Ñuñoa' });
    other = await t.createMerchant({ name: 'Otra Tienda' });
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    await sms?.close();
    await sink?.stop();
  });

  it('settings: off by default, replaced whole through REST, read back through GraphQL; bad input is 400', async () => {
    const initial = expectOk(await api(v1('/notifications/settings'), { key: m.testKey }));
    expect(initial.body.settings).toStrictEqual({ channels: [], moments: [], configured_channels: ['sms', 'email'], allowed_countries: ['56'] });
    const bad = await api(v1('/notifications/settings'), { method: 'PUT', key: m.testKey, body: { channels: ['pigeon'], moments: [] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    const put = expectOk(await api(v1('/notifications/settings'), { method: 'PUT', key: m.testKey, body: { channels: ['sms', 'email', 'whatsapp'], moments: ALL_MOMENTS } }));
    expect(put.body.settings.channels).toStrictEqual(['sms', 'email', 'whatsapp']);
    const read = await gql(t.url, '{ notificationSettings { ... on QueryNotificationSettingsSuccess { data { channels moments configuredChannels allowedCountries } } } }', { key: m.liveKey });
    expect(read.body.data.notificationSettings.data).toStrictEqual({ channels: ['sms', 'email', 'whatsapp'], moments: ALL_MOMENTS, configuredChannels: ['sms', 'email'], allowedCountries: ['56'] });
  });

  it('GraphQL updates the settings with a typed result', async () => {
    const res = await gql(
      t.url,
      `mutation { updateNotificationSettings(input: { channels: [sms], moments: [created] }) {
         ... on MutationUpdateNotificationSettingsSuccess { data { channels moments } } ... on AppError { code } } }`,
      { key: other.testKey },
    );
    expect(res.body.data.updateNotificationSettings.data).toStrictEqual({ channels: ['sms'], moments: ['created'] });
  });

  it('test mode: the messages land in the sandbox outbox (Spanish, tracking link), never at a provider, only for their merchant and mode', async () => {
    const before = sms.requests.length;
    const created = expectOk(await api(v1('/orders'), { key: m.testKey, body: formB({ customer_email: EMAIL, reference_id: 'NTF-TEST-1' }) }), 201);
    const cancelled = await api(v1(`/orders/${created.body.booking_id}/cancel`), { key: m.testKey, body: { reason: 'cliente ausente' } });
    expect(cancelled.status).toBe(200);

    const page = expectOk(await api(v1('/notifications?limit=10'), { key: m.testKey }));
    const rows = page.body.notifications as Array<Record<string, string>>;
    // Newest first: the cancellation's (failed), then the creation's; whatsapp too (test mode needs no provider).
    expect(rows.map((n) => `${n.moment}:${n.channel}`)).toStrictEqual(['failed:whatsapp', 'failed:email', 'failed:sms', 'created:whatsapp', 'created:email', 'created:sms']);
    expect(rows.every((n) => n.status === 'sandboxed' && n.order_id === created.body.booking_id)).toBe(true);
    const createdSms = rows.find((n) => n.moment === 'created' && n.channel === 'sms')!;
    expect(createdSms.to).toBe(PHONE);
    expect(createdSms.body).toBe(`Tienda Ñuñoa: recibimos tu pedido ${created.body.tracking_number}. Síguelo aquí: ${created.body.tracking_url}`);
    const failedEmail = rows.find((n) => n.moment === 'failed' && n.channel === 'email')!;
    expect(failedEmail).toMatchObject({ to: EMAIL, subject: 'Tienda Ñuñoa: no pudimos entregar tu pedido' });
    expect(failedEmail.body).toContain(created.body.tracking_url);

    // Paged, newest first.
    const first = expectOk(await api(v1('/notifications?limit=4'), { key: m.testKey }));
    expect(first.body.has_more).toBe(true);
    const second = expectOk(await api(v1(`/notifications?limit=4&after=${first.body.next_cursor}`), { key: m.testKey }));
    expect([...first.body.notifications, ...second.body.notifications].map((n: { id: string }) => n.id)).toStrictEqual(rows.map((n) => n.id));
    expect((await api(v1('/notifications?after=bk_01JHX3Z6Q8R2V4N7W9Y1A3C5E7'), { key: m.testKey })).status).toBe(400);

    // The same outbox through GraphQL.
    const graph = await gql(t.url, '{ notifications(first: 10) { ... on QueryNotificationsSuccess { data { nodes { id moment channel status to body } nextCursor } } } }', { key: m.testKey });
    expect(graph.body.data.notifications.data.nodes.map((n: { id: string }) => n.id)).toStrictEqual(rows.map((n) => n.id));

    // Live mode and another merchant see none of it.
    expect(expectOk(await api(v1('/notifications'), { key: m.liveKey })).body.notifications).toStrictEqual([]);
    expect(expectOk(await api(v1('/notifications'), { key: other.testKey })).body.notifications).toStrictEqual([]);
    const foreign = await gql(t.url, `{ notifications(orderId: "${created.body.booking_id}") { ... on QueryNotificationsSuccess { data { nodes { id } } } } }`, { key: other.testKey });
    expect(foreign.body.data.notifications.data.nodes).toStrictEqual([]);
    // Nothing reached a provider.
    expect(sms.requests.length).toBe(before);
  });

  it('live mode: the worker sends the SMS and the email; a channel without a provider fails at once', async () => {
    const created = expectOk(await api(v1('/orders'), { key: m.liveKey, body: formB({ customer_email: EMAIL, reference_id: 'NTF-LIVE-1' }) }), 201);
    await sms.waitFor(1);
    const form = new URLSearchParams(sms.requests.at(-1)!.body);
    expect(form.get('To')).toBe(PHONE);
    expect(form.get('Body')).toContain(created.body.tracking_url);
    expect(sms.requests.at(-1)!.url).toBe('/2010-04-01/Accounts/AC42/Messages.json');

    const mail = await sink.next();
    expect(mail.to).toStrictEqual([EMAIL]);
    expect(decodeQuotedPrintable(mail.raw)).toContain(`Tienda Ñuñoa: recibimos tu pedido ${created.body.tracking_number}. Síguelo aquí: ${created.body.tracking_url}`);

    let rows: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 200; i++) {
      rows = expectOk(await api(v1(`/notifications?order_id=${created.body.booking_id}`), { key: m.liveKey })).body.notifications;
      if (rows.length === 3 && rows.every((n) => n.status !== 'pending')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const byChannel = Object.fromEntries(rows.map((n) => [n.channel, n]));
    expect(byChannel.sms).toMatchObject({ status: 'sent', attempts: 1 });
    expect(byChannel.email).toMatchObject({ status: 'sent', attempts: 1 });
    expect(byChannel.whatsapp).toMatchObject({ status: 'failed', attempts: 1, last_error: 'channel whatsapp is not configured' });
  }, 60_000);

  it("the recipient's phone and email never reach the logs", async () => {
    await new Promise((r) => setTimeout(r, 400)); // the logger's batch flushes every 250 ms
    const text = logs.text();
    expect(text).toContain('notification sent');
    for (const secret of [PHONE, PHONE.slice(1), '987654321', EMAIL, 'javiera.munoz']) expect(text, secret).not.toContain(secret);
  });
});
