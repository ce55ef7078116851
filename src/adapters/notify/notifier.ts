import { channelNotConfigured, type NotificationChannel } from '../../domain/notifications/types.js';
import type { Notifier, OutgoingMessage, SendOutcome } from '../../ports/notifier.js';
import { createSmtpEmailSender, type SmtpConfig } from './smtp.js';
import { createTwilioSmsSender, type TwilioSmsConfig } from './twilio.js';
import { createWhatsAppSender, type WhatsAppConfig } from './whatsapp.js';

export interface NotifierConfig {
  sms: TwilioSmsConfig | null;
  whatsapp: WhatsAppConfig | null;
  email: SmtpConfig | null;
}

/** The channels' adapters behind one port: each message goes to its channel's; a channel not configured is a permanent failure. */
export function createNotifier(config: NotifierConfig): Notifier & { close(): void } {
  const email = config.email ? createSmtpEmailSender(config.email) : null;
  const senders: Partial<Record<NotificationChannel, Pick<Notifier, 'send'>>> = {
    ...(config.sms && { sms: createTwilioSmsSender(config.sms) }),
    ...(config.whatsapp && { whatsapp: createWhatsAppSender(config.whatsapp) }),
    ...(email && { email }),
  };
  return {
    channels: Object.keys(senders) as NotificationChannel[],
    async send(message: OutgoingMessage): Promise<SendOutcome> {
      const sender = senders[message.channel];
      if (!sender) return { ok: false, error: channelNotConfigured(message.channel), permanent: true };
      return sender.send(message);
    },
    close() {
      email?.close();
    },
  };
}
