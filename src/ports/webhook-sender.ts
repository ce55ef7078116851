export type SendResult = { statusCode: number; latencyMs: number } | { error: string; latencyMs: number };

/** Outbound HTTP for webhooks. */
export interface WebhookSender {
  /** The addresses a host name resolves to ([] when it does not resolve). */
  resolve(host: string): Promise<string[]>;
  /**
   * POSTs the body; never follows redirects; gives up after timeoutMs. With allowPrivate false,
   * the connection is refused when the host resolves to a private, loopback or link-local address
   * (checked on the address actually connected to, so DNS rebinding cannot slip past).
   */
  send(options: { url: string; headers: Record<string, string>; body: string; timeoutMs: number; allowPrivate: boolean }): Promise<SendResult>;
}
