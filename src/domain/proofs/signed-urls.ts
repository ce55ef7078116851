import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../ports/clock.js';

/** How long a proof link in a REST or GraphQL answer (and the console) works. */
export const PROOF_URL_TTL_MS = 60 * 60_000;
/** How long a proof link in a webhook or event-feed payload works (deliveries are retried for days). */
export const PROOF_WEBHOOK_URL_TTL_MS = 7 * 86_400_000;

export type ProofUrlSigner = ReturnType<typeof createProofUrlSigner>;

/**
 * Signed, expiring links to hosted proofs (issue #27): `/api/v1/proofs/{id}?expires=<unix s>&sig=<HMAC>`,
 * the HMAC-SHA256 of `<id>.<expires>` under a key derived from the master key (so every node signs
 * and checks alike, and no key is stored). Whoever holds a link may read that one proof until it expires.
 */
export function createProofUrlSigner(deps: { masterKey: Buffer; clock: Clock; publicBaseUrl: () => string }) {
  const key = createHmac('sha256', deps.masterKey).update('express-delivery proof urls v1').digest();
  const mac = (id: string, expires: number) => createHmac('sha256', key).update(`${id}.${expires}`).digest('base64url');

  function sign(proofId: string, ttlMs: number = PROOF_URL_TTL_MS): string {
    const expires = Math.floor((deps.clock.now().getTime() + ttlMs) / 1000);
    return `${deps.publicBaseUrl()}/api/v1/proofs/${encodeURIComponent(proofId)}?expires=${expires}&sig=${mac(proofId, expires)}`;
  }

  /** Whether the link's signature is ours for this id and expiry, and it has not expired. */
  function verify(options: { proofId: string; expires: string | undefined; sig: string | undefined }): 'ok' | 'expired' | 'invalid' {
    const { proofId, expires, sig } = options;
    if (!expires || !/^\d{1,12}$/.test(expires) || !sig || sig.length > 64) return 'invalid';
    const expected = Buffer.from(mac(proofId, Number(expires)));
    const given = Buffer.from(sig);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return Number(expires) * 1000 <= deps.clock.now().getTime() ? 'expired' : 'ok';
  }

  return { sign, verify };
}
