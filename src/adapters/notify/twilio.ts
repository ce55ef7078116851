import type { Notifier, OutgoingMessage, SendOutcome } from '../../ports/notifier.js';
import { isPermanentStatus, postWithTimeout, providerMessage } from './http.js';

export interface TwilioSmsConfig {
  /** https://api.twilio.com, or a compatible provider's (or a local test server's) base URL. */
  baseUrl: string;
  accountSid: string;
  authToken: string;
  /** The sender: a number (E.164) or a messaging service's alphanumeric id. */
  from: string;
  timeoutMs: number;
}

/**
 * SMS through a Twilio-compatible API: POST {base}/2010-04-01/Accounts/{sid}/Messages.json, the
 * message form-encoded (To, From, Body), HTTP basic auth with the account SID and auth token.
 */
export function createTwilioSmsSender(config: TwilioSmsConfig): Pick<Notifier, 'send'> {
  const url = `${config.baseUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(config.accountSid)}/Messages.json`;
  const authorization = `Basic ${Buffer.from(`${config.accountSid}:${config.authToken}`).toString('base64')}`;
  return {
    async send(message: OutgoingMessage): Promise<SendOutcome> {
      const body = new URLSearchParams({ To: message.to, From: config.from, Body: message.body }).toString();
      const answer = await postWithTimeout(url, {
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', 'i-twilio-idempotency-token': message.id },
        body,
        timeoutMs: config.timeoutMs,
      });
      if ('error' in answer) return { ok: false, error: `sms: ${answer.error}` };
      if (answer.status >= 200 && answer.status < 300) {
        let sid: string | null = null;
        try {
          sid = (JSON.parse(answer.text) as { sid?: string }).sid ?? null;
        } catch {
          // a compatible provider may answer without a body
        }
        return { ok: true, providerId: sid };
      }
      return { ok: false, error: `sms: HTTP ${answer.status}: ${providerMessage(answer.text)}`, permanent: isPermanentStatus(answer.status) };
    },
  };
}
