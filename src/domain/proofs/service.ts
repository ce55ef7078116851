import { createHash } from 'node:crypto';
import type { Clock } from '../../ports/clock.js';
import type { IdSource } from '../../ports/ids.js';
import type { ProofKind, ProofRecord } from '../../ports/proof-store.js';
import type { Store } from '../../ports/store.js';
import { AppError } from '../errors.js';
import { isOrderActive } from '../orders/state-machine.js';
import type { Courier, Order } from '../types.js';
import { cleanProofImage } from './images.js';
import type { ProofUrlSigner } from './signed-urls.js';

export const PROOF_KINDS = ['photo', 'signature'] as const;

export type ProofService = ReturnType<typeof createProofService>;

/**
 * Hosted proofs of delivery (issue #27): the courier of an order uploads a photo or a signature
 * (checked by its bytes, metadata stripped, size-limited); the delivery refers to it; merchants read
 * it through signed, expiring links; retention removes it after PROOF_RETENTION_DAYS.
 */
export function createProofService(deps: { store: Store; clock: Clock; ids: IdSource; signer: ProofUrlSigner; maxBytes: number; retentionMs: number }) {
  const { store, clock, ids, signer } = deps;

  /** The courier's own active order: any other is "not found", never another courier's. */
  async function ownActiveOrder(courier: Courier, ref: string): Promise<Order> {
    const order = ref.length <= 128 ? await store.orders.findById(ref.trim()) : null;
    if (!order || order.courierId !== courier.id || order.mode !== courier.mode) throw new AppError('ORDER_NOT_FOUND', 'No such order assigned to you');
    if (!isOrderActive(order)) throw new AppError('INVALID_STATUS_TRANSITION', `Order is ${order.status}: its proof can no longer change`);
    return order;
  }

  async function uploadProof(options: { courier: Courier; ref: string; kind: ProofKind; contentType: string | undefined; data: Buffer }): Promise<ProofRecord> {
    const order = await ownActiveOrder(options.courier, options.ref);
    if (options.data.length > deps.maxBytes) throw new AppError('PAYLOAD_TOO_LARGE', `A proof image may be at most ${deps.maxBytes} bytes`);
    const clean = cleanProofImage({ data: options.data, declared: options.contentType });
    const record: ProofRecord = {
      id: ids.next('pf'), orderId: order.id, courierId: options.courier.id, kind: options.kind, contentType: clean.contentType,
      bytes: clean.data.length, sha256: createHash('sha256').update(clean.data).digest('hex'), createdAt: clock.now().toISOString(),
    };
    await store.proofs.put({ record, data: clean.data });
    return record;
  }

  /** Checks that the ids name uploaded proofs of this order and of their kind (the delivery's proof). */
  async function assertDeliveryProofs(options: { order: Order; photoProofId?: string | undefined; signatureProofId?: string | undefined }): Promise<void> {
    for (const [kind, id, field] of [['photo', options.photoProofId, 'photoProofId'], ['signature', options.signatureProofId, 'signatureProofId']] as const) {
      if (id === undefined) continue;
      const record = await store.proofs.find(id);
      if (!record || record.orderId !== options.order.id || record.kind !== kind) {
        throw new AppError('VALIDATION_ERROR', `${field} is not a ${kind} proof uploaded for this order`, { fields: [{ field, message: `not a ${kind} proof of this order` }] });
      }
    }
  }

  /** The bytes behind a signed link; every refusal of a link is the same 404 but expiry, which is 403 (ask for a fresh one). */
  async function readSigned(options: { proofId: string; expires: string | undefined; sig: string | undefined }) {
    const verdict = signer.verify(options);
    if (verdict === 'invalid') throw new AppError('NOT_FOUND', 'No such proof, or the link is not valid');
    if (verdict === 'expired') throw new AppError('FORBIDDEN', 'This proof link has expired: read the order again for a fresh one');
    const found = await store.proofs.read(options.proofId);
    if (!found) throw new AppError('NOT_FOUND', 'No such proof, or the link is not valid');
    return found;
  }

  /** Retention, one bounded step. */
  function prune(options: { limit: number }): Promise<number> {
    return store.proofs.prune({ createdBefore: new Date(clock.now().getTime() - deps.retentionMs).toISOString(), limit: options.limit });
  }

  return { uploadProof, assertDeliveryProofs, readSigned, prune, signedUrl: signer.sign };
}
