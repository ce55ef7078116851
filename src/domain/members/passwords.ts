import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { scryptOptionsOf, type DeriveKey } from '../../ports/key-derivation.js';
import { createTurns } from '../turns.js';

/**
 * Password hashing with scrypt (memory-hard; node:crypto, no dependency): N = 2^15, r = 8, p = 1
 * (32 MiB and roughly 100–250 ms of CPU per hash), a 16-byte random salt per password, a 32-byte
 * key. Stored as `scrypt$<N>$<r>$<p>$<salt b64>$<key b64>`, so the parameters can be raised later
 * and older hashes still verify.
 */
export const SCRYPT_PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

export const PASSWORD_MIN_LENGTH = 12;
/** Bounds the work a hostile request can ask for (scrypt reads the whole password). */
export const PASSWORD_MAX_LENGTH = 256;

/** node:crypto's async scrypt, on libuv's thread pool (what a hasher without a worker pool uses). */
export const deriveOnLibuvPool: DeriveKey = (job) =>
  new Promise((resolve, reject) => scrypt(job.password, job.salt, job.keyBytes, scryptOptionsOf(job), (error, key) => (error ? reject(error) : resolve(key))));

const STORED = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/;

export interface PasswordHasherOptions {
  derive?: DeriveKey;
  /** Hashes computed at once (each takes a core while it runs). */
  concurrency: number;
  /** Hashes that may wait for a turn; one more is refused with SERVICE_UNAVAILABLE at once. */
  queueLimit: number;
}

export type PasswordHasher = ReturnType<typeof createPasswordHasher>;

/**
 * Every password hash of the node goes through here: at most `concurrency` run at once and at most
 * `queueLimit` wait, so a burst of sign-ins costs at most that many cores, however many arrive; the
 * rest are refused before any work. (Unbounded, each request took a libuv thread: four hashes at
 * once filled a two-core machine and every other request waited behind them.)
 */
export function createPasswordHasher(options: PasswordHasherOptions) {
  const derive = options.derive ?? deriveOnLibuvPool;
  let derived = 0;
  const turns = createTurns({ concurrency: options.concurrency, queueLimit: options.queueLimit, busyMessage: 'Too many sign-ins at once: try again in a few seconds' });
  const { withTurn } = turns;

  const deriveUnqueued = (password: string, salt: Buffer, params: { N: number; r: number; p: number }) => {
    derived++;
    return derive({ password: password.normalize('NFC'), salt, keyBytes: KEY_BYTES, ...params });
  };

  async function hashUnqueued(password: string): Promise<string> {
    const salt = randomBytes(SALT_BYTES);
    const key = await deriveUnqueued(password, salt, SCRYPT_PARAMS);
    const { N, r, p } = SCRYPT_PARAMS;
    return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
  }

  const hashPassword = (password: string): Promise<string> => withTurn(() => hashUnqueued(password));

  /**
   * Takes a turn first (refused at once when the queue is full), then `claim`s what the hash is for
   * (a one-time link) and hashes only if the claim succeeds: a refusal never wastes the claim, and
   * a claim that fails costs no hash.
   */
  function hashPasswordFor<T>(password: string, claim: () => Promise<T | null>): Promise<{ claimed: T; passwordHash: string } | null> {
    return withTurn(async () => {
      const claimed = await claim();
      return claimed === null ? null : { claimed, passwordHash: await hashUnqueued(password) };
    });
  }

  /** Constant-time comparison of the derived key; a malformed stored hash never matches. */
  async function verifyPassword(password: string, stored: string): Promise<boolean> {
    const match = STORED.exec(stored);
    if (!match) return false;
    const [, N, r, p, salt, key] = match;
    const expected = Buffer.from(key!, 'base64');
    const computedKey = await withTurn(() => deriveUnqueued(password, Buffer.from(salt!, 'base64'), { N: Number(N), r: Number(r), p: Number(p) }));
    return computedKey.length === expected.length && timingSafeEqual(computedKey, expected);
  }

  /**
   * A hash of no password anyone knows, made once: a sign-in for an unknown email verifies against
   * it, so it takes as long as one for a known email (no enumeration by timing).
   */
  let decoy: Promise<string> | undefined;
  function decoyHash(): Promise<string> {
    if (!decoy) {
      decoy = hashPassword(randomBytes(32).toString('base64'));
      // A refused turn (a full queue) is not remembered: the next sign-in makes it.
      decoy.catch(() => (decoy = undefined));
    }
    return decoy;
  }

  return {
    hashPassword,
    hashPasswordFor,
    verifyPassword,
    decoyHash,
    /** Turns taken now, turns waited for, and scrypt derivations started since the start (tests and metrics). */
    stats: () => Object.assign(turns.stats(), { derived }),
  };
}
