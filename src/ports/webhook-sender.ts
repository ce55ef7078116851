/**
 * Which receivers a delivery may reach: public addresses only; loopback too (a receiver on the
 * developer's own machine); or any address, private ranges included.
 */
export type WebhookReach = 'public' | 'loopback' | 'private';

export type SendResult = { statusCode: number; latencyMs: number } | { error: string; latencyMs: number };

/** Outbound HTTP for webhooks. */
export interface WebhookSender {
  /** The addresses a host name resolves to ([] when it does not resolve). */
  resolve(host: string): Promise<string[]>;
  /**
   * POSTs the body; never follows redirects; gives up after timeoutMs. The connection is refused
   * when the host resolves to an address outside `reach` (checked on the address actually connected
   * to, so DNS rebinding cannot slip past).
   */
  send(options: { url: string; headers: Record<string, string>; body: string; timeoutMs: number; reach: WebhookReach }): Promise<SendResult>;
}
