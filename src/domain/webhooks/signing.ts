import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signature (standardwebhooks.com): base64 HMAC-SHA256 over
 * "<id>.<timestamp>.<body>" keyed with the base64-decoded part of each `whsec_` secret; one
 * `v1,<sig>` per secret, space-separated (both old and new during a rotation).
 */
export function signWebhook(options: { secrets: string[]; id: string; timestamp: number; body: string }): string {
  const content = `${options.id}.${options.timestamp}.${options.body}`;
  return options.secrets
    .map((secret) => {
      const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
      return `v1,${createHmac('sha256', key).update(content).digest('base64')}`;
    })
    .join(' ');
}
