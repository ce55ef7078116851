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
  /** Size of the stored (re-encoded) bytes. */
  bytes: number;
  /** SHA-256 of the stored bytes, hex. */
  sha256: string;
  createdAt: string;
}

/** How much the proof store holds, and how much room its disk has left (null: it cannot tell). */
export interface ProofStoreSpace {
  usedBytes: number;
  freeBytes: number | null;
}

/**
 * Where proof images live: the embedded adapter keeps content-addressed, owner-only files under
 * DATA_DIR; the distributed one a MongoDB GridFS bucket. Every method is one unit of work.
 *
 * A new proof is *unsettled* until the unused-upload sweep has seen a delivery refer to it (then
 * `settle`) or removed it: `unsettled` lists them, oldest first, so the sweep never reads the
 * settled ones again (issue #39).
 */
export interface ProofStore {
  /** Stores the bytes under the record (whose bytes and sha256 describe them), unsettled. */
  put(options: { record: ProofRecord; data: Buffer }): Promise<void>;
  find(id: string): Promise<ProofRecord | null>;
  /** The record and its bytes, or null. */
  read(id: string): Promise<{ record: ProofRecord; data: Buffer } | null>;
  /** Retention, one bounded step: removes at most `limit` proofs created before `createdBefore`; returns how many. */
  prune(options: { createdBefore: string; limit: number }): Promise<number>;
  /** At most `limit` unsettled proofs created before `createdBefore`, oldest first. */
  unsettled(options: { createdBefore: string; limit: number }): Promise<ProofRecord[]>;
  /** Marks the proof settled (a delivery refers to it): `unsettled` no longer lists it. */
  settle(id: string): Promise<void>;
  /** Removes one proof (its bytes too when no other proof shares them); false when it was not there. */
  remove(id: string): Promise<boolean>;
  /** The bytes held (content-addressed: shared bytes count once) and the free room of the disk under them. */
  space(): Promise<ProofStoreSpace>;
}

/**
 * Counters of the upload budgets (issue #39): proofs per order stop, bytes per courier and day.
 * Store-backed (a SQLite table embedded, a MongoDB collection distributed), so every node and
 * every restart sees the same counts.
 */
export interface ProofBudgetRepository {
  /**
   * Adds `amount` to the counter `key` when the total stays at most `limit`, atomically across
   * nodes; a counter made here is kept until `expiresAt`. `used`: the total after (taken) or as
   * found (refused).
   */
  take(options: { key: string; amount: number; limit: number; expiresAt: string }): Promise<{ taken: boolean; used: number }>;
  /** Gives back `amount` taken by `take` (a reservation whose upload was not stored); never below zero. */
  giveBack(options: { key: string; amount: number }): Promise<void>;
  /** Retention, one bounded step: counters whose `expiresAt` is before `before`. */
  prune(options: { before: string; limit: number }): Promise<number>;
}
