import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSmtpEmailSender } from '../../src/adapters/notify/smtp.js';
import { createTwilioSmsSender } from '../../src/adapters/notify/twilio.js';
import { createWhatsAppSender } from '../../src/adapters/notify/whatsapp.js';
import { renderNotification } from '../../src/domain/notifications/templates.js';
import { decodeQuotedPrintable, startProviderServer, startSmtpSink, type SmtpSink } from './support.js';

const context = { shop: 'Tienda Ñuñoa', trackingNumber: 'TRK-7QK2M9', trackingUrl: 'http://envios.test/track/TRK-7QK2M9' };

describe('SMS through a Twilio-compatible API', () => {
  it('POSTs the form-encoded message to Messages.json with basic auth; 4xx is permanent, 5xx is retried', async () => {
    let status = 201;
    const provider = await startProviderServer(() => ({ status, body: status === 201 ? { sid: 'SM123' } : { code: 21211, message: 'invalid To' } }));
    try {
      const sms = createTwilioSmsSender({ baseUrl: `${provider.url}/`, accountSid: 'AC0123', authToken: 'secret-token', from: '+56221234567', timeoutMs: 5000 });
      const { body } = renderNotification('on_the_way', 'sms', context);
      expect(await sms.send({ channel: 'sms', to: '+56912345678', subject: null, body, id: 'ntf_1' })).toStrictEqual({ ok: true, providerId: 'SM123' });
      const [request] = provider.requests;
      expect(request!.method).toBe('POST');
      expect(request!.url).toBe('/2010-04-01/Accounts/AC0123/Messages.json');
      expect(request!.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(request!.headers.authorization).toBe(`Basic ${Buffer.from('AC0123:secret-token').toString('base64')}`);
      const form = new URLSearchParams(request!.body);
      expect(Object.fromEntries(form)).toStrictEqual({ To: '+56912345678', From: '+56221234567', Body: body });
      expect(form.get('Body')).toContain('va en camino');
      expect(form.get('Body')).toContain(context.trackingUrl);

      status = 400;
      expect(await sms.send({ channel: 'sms', to: '+56912345678', subject: null, body, id: 'ntf_2' })).toMatchObject({ ok: false, permanent: true });
      status = 503;
      expect(await sms.send({ channel: 'sms', to: '+56912345678', subject: null, body, id: 'ntf_3' })).toMatchObject({ ok: false, permanent: false });
    } finally {
      await provider.close();
    }
  });
});

describe('WhatsApp through the Cloud API', () => {
  it('POSTs {messaging_product, to, type: text, text.body} to /{version}/{phone_number_id}/messages with a Bearer token', async () => {
    const provider = await startProviderServer(() => ({ status: 200, body: { messaging_product: 'whatsapp', messages: [{ id: 'wamid.ABC' }] } }));
    try {
      const whatsapp = createWhatsAppSender({ baseUrl: provider.url, apiVersion: 'v21.0', phoneNumberId: '1098765', accessToken: 'EAAG-token', timeoutMs: 5000 });
      const { body } = renderNotification('delivered', 'whatsapp', context);
      expect(await whatsapp.send({ channel: 'whatsapp', to: '+56912345678', subject: null, body, id: 'ntf_1' })).toStrictEqual({ ok: true, providerId: 'wamid.ABC' });
      const [request] = provider.requests;
      expect(request!.url).toBe('/v21.0/1098765/messages');
      expect(request!.headers.authorization).toBe('Bearer EAAG-token');
      expect(request!.headers['content-type']).toBe('application/json');
      const sent = JSON.parse(request!.body) as Record<string, unknown>;
      expect(sent).toMatchObject({ messaging_product: 'whatsapp', to: '56912345678', type: 'text', text: { body } });
      expect(body).toContain('fue entregado');
      expect(body).toContain(context.trackingUrl);
    } finally {
      await provider.close();
    }
  });
});

describe('email through SMTP (a real smtp-server process)', () => {
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await startSmtpSink();
  }, 30_000);
  afterAll(async () => {
    await sink?.stop();
  });

  it('delivers the Spanish message with its subject and the tracking link', async () => {
    const email = createSmtpEmailSender({ url: `smtp://127.0.0.1:${sink.port}`, from: 'Envíos <avisos@envios.test>', timeoutMs: 10_000 });
    try {
      const { subject, body } = renderNotification('created', 'email', context);
      const outcome = await email.send({ channel: 'email', to: 'ana@example.cl', subject, body, id: 'ntf_01ABC' });
      expect(outcome.ok).toBe(true);
      const received = await sink.next();
      expect(received.from).toBe('avisos@envios.test');
      expect(received.to).toStrictEqual(['ana@example.cl']);
      const [head, ...rest] = received.raw.split(/\r?\n\r?\n/);
      expect(head).toMatch(/^Content-Language: es-CL$/m);
      expect(head).toMatch(/^Subject: /m);
      const text = decodeQuotedPrintable(rest.join('\n\n'));
      expect(text).toContain('Tienda Ñuñoa: recibimos tu pedido TRK-7QK2M9. Síguelo aquí: http://envios.test/track/TRK-7QK2M9');
    } finally {
      email.close();
    }
  }, 30_000);
});
