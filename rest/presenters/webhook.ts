import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../../src/domain/types.js';
import type { PublishedKey } from '../../src/domain/webhooks/signing-keys.js';

export function presentPublicKey(k: PublishedKey) {
  return { id: k.id, algorithm: k.algorithm, public_key: k.publicKey, public_key_pem: k.publicKeyPem, created_at: k.createdAt, expires_at: k.expiresAt };
}

export function presentEndpoint(e: WebhookEndpoint) {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    events: e.events,
    payload_shape: e.payloadShape,
    signing: e.signing,
    enabled: e.enabled,
    disabled_reason: e.disabledReason,
    failing_since: e.failingSince,
    is_test: e.mode === 'test',
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  };
}

export function presentDelivery(d: WebhookDelivery) {
  return {
    id: d.id,
    endpoint_id: d.endpointId,
    event: d.eventType,
    booking_id: d.orderId,
    sequence: d.sequence,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: d.status === 'pending' ? d.nextAttemptAt : null,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    last_latency_ms: d.lastLatencyMs,
    created_at: d.createdAt,
    delivered_at: d.deliveredAt,
    payload: JSON.parse(d.body) as unknown,
  };
}

export function presentAttempt(a: WebhookAttempt) {
  return { attempt: a.attempt, at: a.at, status_code: a.statusCode, latency_ms: a.latencyMs, error: a.error };
}
