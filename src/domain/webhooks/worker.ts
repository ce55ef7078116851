import type { Clock } from '../../ports/clock.js';
import type { IdSource } from '../../ports/ids.js';
import type { Store } from '../../ports/store.js';
import type { WebhookReach, WebhookSender } from '../../ports/webhook-sender.js';
import type { WebhookDelivery, WebhookEndpoint } from '../types.js';
import type { SigningKeyService } from './signing-keys.js';
import { signWebhook, signWebhookAsymmetric } from './signing.js';

/** Minutes to wait after each failed attempt: 8 retries over about 24 hours. */
export const RETRY_DELAYS_MIN = [1, 5, 15, 30, 60, 180, 360, 780];

export interface WebhookWorkerConfig {
  timeoutMs: number;
  maxRetries: number;
  /** Multiplies the retry delays (tests shrink them). */
  retryScale: number;
  disableAfterMs: number;
  /** How far test-mode deliveries may reach (live ones: public addresses only). */
  sandboxReach: WebhookReach;
  /** Requests this node has in flight at most; a poll claims only what fits. */
  maxInFlight: number;
  /** Deliveries of one merchant in flight at most, across all nodes (leased in the store). */
  merchantConcurrency: number;
  /** Requests to one endpoint in flight at most, across all nodes. */
  endpointConcurrency: number;
}

/** The delay before retry n (1-based), with ±10 % jitter so failing receivers are not hit in lockstep. */
export function retryDelayMs(retry: number, scale: number, random = Math.random): number {
  const minutes = RETRY_DELAYS_MIN[Math.min(retry, RETRY_DELAYS_MIN.length) - 1]!;
  return Math.round(minutes * 60_000 * scale * (0.9 + 0.2 * random()));
}

export type WebhookWorker = ReturnType<typeof createWebhookWorker>;

/**
 * Sends due deliveries. Each is leased before sending (several nodes never send the same attempt),
 * signed per Standard Webhooks with every current secret of the merchant, sent with a timeout and
 * no redirects; 2xx is delivered, anything else is retried with backoff, then failed. An endpoint
 * that keeps failing for `disableAfterMs` is disabled with the reason.
 */
export function createWebhookWorker(deps: { store: Store; sender: WebhookSender; signingKeys: SigningKeyService; clock: Clock; ids: IdSource; config: WebhookWorkerConfig }) {
  const { store, sender, signingKeys, clock, ids, config } = deps;
  const leaseMs = config.timeoutMs * 3;

  /** `v1,` with every secret in force (symmetric endpoints), or `v1a,` with every Ed25519 key in force (asymmetric ones). */
  async function signatureOf(endpoint: WebhookEndpoint, delivery: WebhookDelivery, timestamp: number): Promise<string> {
    const keys = await signingKeys.keysInForce({ merchantId: delivery.merchantId });
    const content = { id: delivery.id, timestamp, body: delivery.body };
    return endpoint.signing === 'asymmetric'
      ? signWebhookAsymmetric(Object.assign({ privateKeys: keys.map((k) => k.privateKey) }, content))
      : signWebhook(Object.assign({ secrets: keys.map((k) => k.secret) }, content));
  }

  async function attempt(delivery: WebhookDelivery, owner: string): Promise<void> {
    const endpoint = await store.webhooks.findEndpoint({ id: delivery.endpointId });
    const number = delivery.attempts + 1;
    const at = clock.now();
    let result: { statusCode?: number; error?: string; latencyMs: number };
    if (!endpoint || !endpoint.enabled) {
      result = { error: endpoint ? `endpoint disabled: ${endpoint.disabledReason ?? 'by the merchant'}` : 'endpoint deleted', latencyMs: 0 };
    } else {
      const timestamp = Math.floor(at.getTime() / 1000);
      const signature = await signatureOf(endpoint, delivery, timestamp);
      result = await sender.send({
        url: endpoint.url,
        body: delivery.body,
        timeoutMs: config.timeoutMs,
        reach: delivery.mode === 'test' ? config.sandboxReach : 'public',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'express-delivery-webhooks/1.2',
          'webhook-id': delivery.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signature,
          'webhook-event': delivery.eventType,
        },
      });
    }
    const ok = result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300;
    const final = ok || number > config.maxRetries || !endpoint || !endpoint.enabled;
    const error = ok ? null : (result.error ?? `HTTP ${result.statusCode}`);
    await store.webhooks.completeAttempt({
      id: delivery.id,
      owner,
      attempt: { id: ids.next('att'), deliveryId: delivery.id, attempt: number, at: at.toISOString(), statusCode: result.statusCode ?? null, latencyMs: result.latencyMs, error },
      outcome: {
        status: ok ? 'delivered' : final ? 'failed' : 'pending',
        nextAttemptAt: final ? null : new Date(at.getTime() + retryDelayMs(number, config.retryScale)).toISOString(),
      },
    });
    if (endpoint?.enabled) await trackEndpointHealth(endpoint.id, ok, at);
  }

  async function trackEndpointHealth(endpointId: string, ok: boolean, at: Date): Promise<void> {
    const endpoint = await store.webhooks.findEndpoint({ id: endpointId });
    if (!endpoint) return;
    const updatedAt = at.toISOString();
    if (ok) {
      if (endpoint.failingSince) await store.webhooks.updateEndpoint({ id: endpointId, patch: { failingSince: null }, updatedAt });
      return;
    }
    if (!endpoint.failingSince) {
      await store.webhooks.updateEndpoint({ id: endpointId, patch: { failingSince: updatedAt }, updatedAt });
    } else if (at.getTime() - Date.parse(endpoint.failingSince) >= config.disableAfterMs) {
      const reason = `disabled automatically: every delivery failed since ${endpoint.failingSince}`;
      await store.webhooks.updateEndpoint({ id: endpointId, patch: { enabled: false, disabledReason: reason }, updatedAt });
    }
  }

  const inFlight = new Set<Promise<void>>();

  /**
   * Claims what fits in the node's free slots (the store applies the merchant and endpoint caps and
   * takes merchants in turns) and starts sending without waiting: a slow endpoint holds its own
   * slots, never the next poll. `settled` runs as each send ends (a slot is free again). Returns how
   * many were claimed and how many could have been (full: there may be more due).
   */
  async function poll(options: { owner: string; settled?: () => void; failed?: (error: unknown) => void }): Promise<{ claimed: number; room: number }> {
    const room = config.maxInFlight - inFlight.size;
    if (room <= 0) return { claimed: 0, room: 0 };
    const due = await store.webhooks.claimDue({
      owner: options.owner, now: clock.now().toISOString(), leaseMs, limit: room,
      merchantConcurrency: config.merchantConcurrency, endpointConcurrency: config.endpointConcurrency,
    });
    for (const d of due) {
      const sending: Promise<void> = attempt(d, options.owner)
        .catch((error: unknown) => options.failed?.(error)) // the lease runs out and a later poll retries it
        .finally(() => {
          inFlight.delete(sending);
          options.settled?.();
        });
      inFlight.add(sending);
    }
    return { claimed: due.length, room };
  }

  /** Waits until every send started on this node has ended. */
  async function drain(): Promise<void> {
    while (inFlight.size > 0) await Promise.all(inFlight);
  }

  return { poll, drain, inFlight: () => inFlight.size };
}
