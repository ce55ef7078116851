import nodemailer from 'nodemailer';
import type { Notifier, OutgoingMessage, SendOutcome } from '../../ports/notifier.js';

export interface SmtpConfig {
  /** smtp://user:pass@host:587 (STARTTLS when offered) or smtps://…:465; credentials in the URL. */
  url: string;
  /** The sender, e.g. "Envíos <avisos@example.cl>". */
  from: string;
  timeoutMs: number;
}

/** Email through SMTP with nodemailer: one pooled transport, plain-text body, the subject of the template. */
export function createSmtpEmailSender(config: SmtpConfig): Pick<Notifier, 'send'> & { close(): void } {
  const url = new URL(config.url);
  const transport = nodemailer.createTransport({
    host: url.hostname,
    port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
    secure: url.protocol === 'smtps:',
    ...(url.username && { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }),
    connectionTimeout: config.timeoutMs,
    greetingTimeout: config.timeoutMs,
    socketTimeout: config.timeoutMs * 2,
    // nodemailer's own logger stays off: it would print the envelope (the recipient's address).
    logger: false,
    debug: false,
  });
  return {
    async send(message: OutgoingMessage): Promise<SendOutcome> {
      try {
        const info = await transport.sendMail({
          from: config.from,
          to: message.to,
          subject: message.subject ?? '',
          text: message.body,
          messageId: `<${message.id}@notifications>`,
          headers: { 'Content-Language': 'es-CL' },
        });
        return { ok: true, providerId: info.messageId ?? null };
      } catch (error) {
        const e = error as Error & { responseCode?: number };
        // 5xx replies are refusals (no such mailbox, policy); 4xx and network errors are worth a retry.
        return { ok: false, error: `email: ${e.responseCode ? `SMTP ${e.responseCode}: ` : ''}${e.message.slice(0, 300)}`, permanent: e.responseCode !== undefined && e.responseCode >= 500 };
      }
    },
    close() {
      transport.close();
    },
  };
}
