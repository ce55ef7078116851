import type { ScryptOptions } from 'node:crypto';

/** One scrypt derivation: the password (already normalized), its salt, the key length and cost. */
export interface ScryptJob {
  password: string;
  salt: Buffer;
  keyBytes: number;
  N: number;
  r: number;
  p: number;
}

/** Runs one scrypt derivation somewhere off the event loop (libuv's pool, a worker thread). */
export type DeriveKey = (job: ScryptJob) => Promise<Buffer>;

/** node:crypto's options for a job: 128 × N × r bytes of memory, plus headroom (Node refuses anything over maxmem). */
export const scryptOptionsOf = (job: ScryptJob): ScryptOptions => ({ N: job.N, r: job.r, p: job.p, maxmem: 256 * job.N * job.r * job.p });
