import { createHmac, randomFillSync, randomInt } from 'node:crypto';
import type { Clock } from './clock.js';
import { monotonicFactory } from 'ulid';

/** Every identifier the domain makes comes from here (tests inject their own). */
export interface IdSource {
  /** A new unique, time-ordered id with the given prefix, e.g. `bk_01J…`. */
  next(prefix: string): string;
  /** A random (never sequential) 10-digit order number, so the public tracking endpoint cannot be walked. */
  orderNumber(): string;
  /** Short, human-readable, not guessable: `EXD-` + 12 Crockford base32 characters (60 random bits). */
  trackingNumber(): string;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function randomTrackingNumber(): string {
  let out = '';
  for (let i = 0; i < 12; i++) out += CROCKFORD[randomInt(32)];
  return `EXD-${out.slice(0, 4)}-${out.slice(4, 8)}-${out.slice(8)}`;
}

function randomOrderNumber(): string {
  return String(randomInt(1_000_000_000, 10_000_000_000));
}

/**
 * Crypto-random bytes as ulid's PRNG, drawn from a pool refilled 4 KiB at a time: ulid's own
 * draws one getRandomValues call per character, which was a tenth of an order creation's CPU.
 */
function pooledRandom(): () => number {
  const pool = new Uint8Array(4096);
  let next = pool.length;
  return () => {
    if (next === pool.length) {
      randomFillSync(pool);
      next = 0;
    }
    return pool[next++]! / 256;
  };
}

export function createUlidSource(): IdSource {
  const ulid = monotonicFactory(pooledRandom());
  return { next: (prefix) => `${prefix}_${ulid()}`, orderNumber: randomOrderNumber, trackingNumber: randomTrackingNumber };
}

/**
 * Ids drawn from a keyed stream (HMAC-SHA256 of the key and a counter) instead of the system's
 * randomness, time-ordered by the given clock: the same key and the same sequence of calls at the
 * same (virtual) times give the same ids. A sandbox run's ids (issue #31).
 */
export function createSeededIdSource(options: { key: Buffer; clock: Clock }): IdSource {
  let block = 0;
  let pool = Buffer.alloc(0);
  let next = 0;
  const byte = () => {
    if (next >= pool.length) {
      pool = createHmac('sha256', options.key).update(String(block++)).digest();
      next = 0;
    }
    return pool[next++]!;
  };
  const ulid = monotonicFactory(() => byte() / 256);
  const below = (n: number) => {
    // 48 bits of the stream, reduced: a bias of at most n / 2^48.
    let v = 0;
    for (let i = 0; i < 6; i++) v = v * 256 + byte();
    return v % n;
  };
  return {
    next: (prefix) => `${prefix}_${ulid(options.clock.now().getTime())}`,
    orderNumber: () => String(1_000_000_000 + below(9_000_000_000)),
    trackingNumber: () => {
      let out = '';
      for (let i = 0; i < 12; i++) out += CROCKFORD[below(32)];
      return `EXD-${out.slice(0, 4)}-${out.slice(4, 8)}-${out.slice(8)}`;
    },
  };
}
