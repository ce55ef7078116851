import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashing with scrypt (memory-hard; node:crypto, no dependency): N = 2^15, r = 8, p = 1
 * (32 MiB and roughly 50–100 ms per hash on one core), a 16-byte random salt per password, a 32-byte
 * key. Stored as `scrypt$<N>$<r>$<p>$<salt b64>$<key b64>`, so the parameters can be raised later
 * and older hashes still verify.
 */
export const SCRYPT_PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

export const PASSWORD_MIN_LENGTH = 12;
/** Bounds the work a hostile request can ask for (scrypt reads the whole password). */
export const PASSWORD_MAX_LENGTH = 256;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  // 128 × N × r bytes, plus headroom: Node refuses anything over maxmem.
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r * params.p };
  return new Promise((resolve, reject) => scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key))));
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, SCRYPT_PARAMS);
  const { N, r, p } = SCRYPT_PARAMS;
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

const STORED = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/;

/** Constant-time comparison of the derived key; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = STORED.exec(stored);
  if (!match) return false;
  const [, N, r, p, salt, key] = match;
  const expected = Buffer.from(key!, 'base64');
  const derived = await derive(password, Buffer.from(salt!, 'base64'), { N: Number(N), r: Number(r), p: Number(p) });
  return derived.length === expected.length && timingSafeEqual(derived, expected);
}

/**
 * A hash of no password anyone knows, made once: a login for an unknown email verifies against it,
 * so it takes as long as one for a known email (no enumeration by timing).
 */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(32).toString('base64'));
  return decoy;
}
