import { createHash } from 'node:crypto';
import type { Clock } from '../../ports/clock.js';
import type { IdSource } from '../../ports/ids.js';
import { UndecodableImageError, type ReencodeImage } from '../../ports/image-encoder.js';
import type { ProofKind, ProofRecord } from '../../ports/proof-store.js';
import type { Store } from '../../ports/store.js';
import { AppError } from '../errors.js';
import { isHeadingToRecipient, isOrderActive } from '../orders/state-machine.js';
import { currentStop } from '../orders/stops.js';
import type { Courier, Order } from '../types.js';
import { createTurns } from '../turns.js';
import { checkProofImageType } from './images.js';
import type { ProofUrlSigner } from './signed-urls.js';

export const PROOF_KINDS = ['photo', 'signature'] as const;

/** A stop's upload counter outlives any order's active life by far; retention removes it after. */
const STOP_COUNTER_TTL_MS = 30 * 86_400_000;
/** The proof store's size and its disk's free room are asked at most this often; uploads in between are added to the answer. */
const SPACE_REFRESH_MS = 5000;
const DAY_MS = 86_400_000;

/** The upload budgets and the re-encoding (issue #39), from config.proofs. */
export interface ProofLimits {
  /** Largest body accepted (413 beyond). */
  maxBytes: number;
  photosPerStop: number;
  signaturesPerStop: number;
  /** Bytes one courier may upload per UTC day. */
  courierDailyBytes: number;
  /** The proof store's budget (bytes held), and the disk's free room it must leave. */
  storeMaxBytes: number;
  minFreeBytes: number;
  /** An upload no delivery refers to is removed once this old. */
  unusedMs: number;
  maxSide: number;
  quality: number;
  maxInputPixels: number;
  /** Re-encodings at once on this node, and how many may wait (503 beyond). */
  encodeConcurrency: number;
  encodeQueue: number;
}

export type ProofService = ReturnType<typeof createProofService>;

/** Every hosted proof the order refers to: its delivery, its stops', its failed attempts' and its return's. */
export function proofIdsOf(order: Order): Set<string> {
  const ids = new Set<string>();
  const add = (id: string | null | undefined) => id && ids.add(id);
  const addProof = (proof: { photoProofId?: string | null; signatureProofId?: string | null } | null | undefined) => {
    add(proof?.photoProofId);
    add(proof?.signatureProofId);
  };
  addProof(order.proof);
  addProof(order.returnLeg?.proof);
  for (const attempt of order.failedAttempts ?? []) add(attempt.photoProofId);
  for (const stop of order.stops ?? []) {
    addProof(stop.proof);
    add(stop.failure?.photoProofId);
  }
  return ids;
}

/**
 * Which stop of the order an upload now is for: the current stop of a multi-stop order, the pickup
 * on the way back after a failed attempt, else the drop-off (a single-drop-off order is one stop).
 */
export function uploadStopOf(order: Order): string {
  const stop = currentStop(order);
  if (stop) return stop.id;
  return isHeadingToRecipient(order) ? 'dropoff' : 'pickup';
}

/**
 * Hosted proofs of delivery (issues #27, #39): the courier of an order uploads a photo or a
 * signature within budgets (per order stop, per courier and day, the store's size and its disk's
 * free room), re-encoded by an image library so only pixels are kept; the delivery refers to it;
 * merchants read it through signed, expiring links; an upload no delivery refers to goes within a
 * day, the rest after PROOF_RETENTION_DAYS.
 */
export function createProofService(deps: { store: Store; clock: Clock; ids: IdSource; signer: ProofUrlSigner; reencode: ReencodeImage; limits: ProofLimits; retentionMs: number }) {
  const { store, clock, ids, signer, limits } = deps;
  const { withTurn } = createTurns({ concurrency: limits.encodeConcurrency, queueLimit: limits.encodeQueue, busyMessage: 'Too many images are being processed: try again in a few seconds' });
  let space: { askedAt: number; usedBytes: number; freeBytes: number | null } | null = null;
  let writtenSince = 0;

  /** The courier's own active order: any other is "not found", never another courier's. */
  async function ownActiveOrder(courier: Courier, ref: string): Promise<Order> {
    const order = ref.length <= 128 ? await store.orders.findById(ref.trim()) : null;
    if (!order || order.courierId !== courier.id || order.mode !== courier.mode) throw new AppError('ORDER_NOT_FOUND', 'No such order assigned to you');
    if (!isOrderActive(order)) throw new AppError('INVALID_STATUS_TRANSITION', `Order is ${order.status}: its proof can no longer change`);
    return order;
  }

  /** 507 when `bytes` more would take the store past its budget or its disk under the free-room floor. */
  async function assertRoom(bytes: number): Promise<void> {
    if (!space || performance.now() - space.askedAt > SPACE_REFRESH_MS) {
      const answer = await store.proofs.space();
      space = { usedBytes: answer.usedBytes, freeBytes: answer.freeBytes, askedAt: performance.now() };
      writtenSince = 0;
    }
    const used = space.usedBytes + writtenSince + bytes;
    const free = space.freeBytes === null ? null : space.freeBytes - writtenSince - bytes;
    if (used > limits.storeMaxBytes || (free !== null && free < limits.minFreeBytes)) {
      throw new AppError('PROOF_STORAGE_FULL', 'Proof storage is full: the upload was not stored; try again later', {
        details: { reason: used > limits.storeMaxBytes ? 'store_budget' : 'disk_free_space' },
      });
    }
  }

  async function reencode(data: Buffer, contentType: ProofRecord['contentType']) {
    try {
      return await withTurn(() => deps.reencode({ data, contentType, maxSide: limits.maxSide, quality: limits.quality, maxInputPixels: limits.maxInputPixels }));
    } catch (error) {
      if (error instanceof UndecodableImageError) throw new AppError('UNSUPPORTED_MEDIA_TYPE', `The body is not a well-formed ${contentType.slice(6).toUpperCase()} image`);
      throw error;
    }
  }

  /**
   * Budgets are taken before the work and given back when nothing was stored (but bytes that did
   * not decode: they were received and decoded all the same).
   */
  async function uploadProof(options: { courier: Courier; ref: string; kind: ProofKind; contentType: string | undefined; data: Buffer }): Promise<ProofRecord> {
    const { courier, kind, data } = options;
    const order = await ownActiveOrder(courier, options.ref);
    if (data.length > limits.maxBytes) throw new AppError('PAYLOAD_TOO_LARGE', `A proof image may be at most ${limits.maxBytes} bytes`);
    const contentType = checkProofImageType({ data, declared: options.contentType });
    const now = clock.now().getTime();

    const perStop = kind === 'photo' ? limits.photosPerStop : limits.signaturesPerStop;
    const stopKey = `stop:${order.id}:${uploadStopOf(order)}:${kind}`;
    const stop = await store.proofBudgets.take({ key: stopKey, amount: 1, limit: perStop, expiresAt: new Date(now + STOP_COUNTER_TTL_MS).toISOString() });
    if (!stop.taken) {
      throw new AppError('PROOF_QUOTA_EXCEEDED', `This stop already has its ${perStop} ${kind}${perStop === 1 ? '' : 's'}: use one of them`, { details: { kind, limit: perStop } });
    }
    const dayEnd = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
    const dayKey = `bytes:${courier.id}:${new Date(now).toISOString().slice(0, 10)}`;
    let stored = false;
    let bytesTaken = false;
    let keepBytes = false;
    try {
      bytesTaken = (await store.proofBudgets.take({ key: dayKey, amount: data.length, limit: limits.courierDailyBytes, expiresAt: new Date(dayEnd + DAY_MS).toISOString() })).taken;
      if (!bytesTaken) {
        const retryAfter = Math.max(1, Math.ceil((dayEnd - now) / 1000));
        throw new AppError('PROOF_BUDGET_EXCEEDED', `Your uploads for today reached ${limits.courierDailyBytes} bytes: more tomorrow (UTC)`, {
          details: { limit_bytes: limits.courierDailyBytes, retry_after_seconds: retryAfter },
        });
      }
      const image = await reencode(data, contentType).catch((error: unknown) => {
        keepBytes = true;
        throw error;
      });
      await assertRoom(image.data.length);
      const record: ProofRecord = {
        id: ids.next('pf'), orderId: order.id, courierId: courier.id, kind, contentType,
        bytes: image.data.length, sha256: createHash('sha256').update(image.data).digest('hex'), createdAt: new Date(now).toISOString(),
      };
      await store.proofs.put({ record, data: image.data });
      writtenSince += image.data.length;
      stored = true;
      return record;
    } finally {
      if (!stored) {
        // Best effort: a counter left high only refuses a little early, until it expires.
        await store.proofBudgets.giveBack({ key: stopKey, amount: 1 }).catch(() => {});
        if (bytesTaken && !keepBytes) await store.proofBudgets.giveBack({ key: dayKey, amount: data.length }).catch(() => {});
      }
    }
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

  /**
   * The unused-upload sweep, one bounded step: unsettled uploads older than PROOF_UNUSED_HOURS are
   * removed unless their order refers to them (then settled: never looked at again).
   */
  async function sweepUnused(options: { limit: number }): Promise<{ checked: number; removed: number }> {
    const batch = await store.proofs.unsettled({ createdBefore: new Date(clock.now().getTime() - limits.unusedMs).toISOString(), limit: options.limit });
    const orders = new Map<string, Order | null>();
    let removed = 0;
    for (const record of batch) {
      if (!orders.has(record.orderId)) orders.set(record.orderId, await store.orders.findById(record.orderId));
      const order = orders.get(record.orderId);
      if (order && proofIdsOf(order).has(record.id)) await store.proofs.settle(record.id);
      else if (await store.proofs.remove(record.id)) removed++;
    }
    return { checked: batch.length, removed };
  }

  return { uploadProof, assertDeliveryProofs, readSigned, prune, sweepUnused, signedUrl: signer.sign };
}
