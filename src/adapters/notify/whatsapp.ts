import type { Notifier, OutgoingMessage, SendOutcome } from '../../ports/notifier.js';
import { isPermanentStatus, postWithTimeout, providerMessage } from './http.js';

export interface WhatsAppConfig {
  /** https://graph.facebook.com, or a local test server's base URL. */
  baseUrl: string;
  /** The Graph API version, e.g. v21.0. */
  apiVersion: string;
  phoneNumberId: string;
  accessToken: string;
  timeoutMs: number;
}

/**
 * WhatsApp through the Cloud API: POST {base}/{version}/{phone_number_id}/messages with
 * {messaging_product: 'whatsapp', to, type: 'text', text: {body}} and a Bearer token. `to` is the
 * number without its `+`, as the API writes it.
 */
export function createWhatsAppSender(config: WhatsAppConfig): Pick<Notifier, 'send'> {
  const url = `${config.baseUrl.replace(/\/+$/, '')}/${encodeURIComponent(config.apiVersion)}/${encodeURIComponent(config.phoneNumberId)}/messages`;
  return {
    async send(message: OutgoingMessage): Promise<SendOutcome> {
      const body = JSON.stringify({ messaging_product: 'whatsapp', recipient_type: 'individual', to: message.to.replace(/^\+/, ''), type: 'text', text: { preview_url: true, body: message.body } });
      const answer = await postWithTimeout(url, {
        headers: { authorization: `Bearer ${config.accessToken}`, 'content-type': 'application/json', accept: 'application/json' },
        body,
        timeoutMs: config.timeoutMs,
      });
      if ('error' in answer) return { ok: false, error: `whatsapp: ${answer.error}` };
      if (answer.status >= 200 && answer.status < 300) {
        let id: string | null = null;
        try {
          id = (JSON.parse(answer.text) as { messages?: Array<{ id?: string }> }).messages?.[0]?.id ?? null;
        } catch {
          // no body
        }
        return { ok: true, providerId: id };
      }
      return { ok: false, error: `whatsapp: HTTP ${answer.status}: ${providerMessage(answer.text)}`, permanent: isPermanentStatus(answer.status) };
    },
  };
}
