import type { ProofContentType } from '../domain/proofs/images.js';

export type ProofKind = 'photo' | 'signature';

/** A hosted proof of delivery (issue #27): what is known of one uploaded image. */
export interface ProofRecord {
  /** `pf_` + ULID (time-ordered). */
  id: string;
  orderId: string;
  courierId: string;
  kind: ProofKind;
  contentType: ProofContentType;
  /** Size of the stored (metadata-stripped) bytes. */
  bytes: number;
  /** SHA-256 of the stored bytes, hex. */
  sha256: string;
  createdAt: string;
}

/**
 * Where proof images live: the embedded adapter keeps content-addressed, owner-only files under
 * DATA_DIR; the distributed one a MongoDB GridFS bucket. Every method is one unit of work.
 */
export interface ProofStore {
  /** Stores the bytes under the record (whose bytes and sha256 describe them). */
  put(options: { record: ProofRecord; data: Buffer }): Promise<void>;
  find(id: string): Promise<ProofRecord | null>;
  /** The record and its bytes, or null. */
  read(id: string): Promise<{ record: ProofRecord; data: Buffer } | null>;
  /** Retention, one bounded step: removes at most `limit` proofs created before `createdBefore`; returns how many. */
  prune(options: { createdBefore: string; limit: number }): Promise<number>;
}
