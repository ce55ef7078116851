import { createCipheriv, createDecipheriv, createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Mode } from './types.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 string; rejection sampling keeps every character uniform. */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export const API_KEY_PATTERN = /^ak_(live|test)_[0-9A-Za-z]{32}$/;
export const COURIER_TOKEN_PATTERN = /^ct_[0-9A-Za-z]{40}$/;

export function generateApiKey(mode: Mode): string {
  return `ak_${mode}_${randomToken(32)}`;
}

export function generateCourierToken(): string {
  return `ct_${randomToken(40)}`;
}

/** Standard Webhooks secret format: `whsec_` + base64 of 32 random bytes. */
export function generateApiSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function modeOfApiKey(key: string): Mode | null {
  const m = API_KEY_PATTERN.exec(key);
  return m ? (m[1] as Mode) : null;
}

export function hashToken(token: string): string {
  // One-shot crypto.hash: a third of createHash's cost, on every authenticated request.
  return hash('sha256', token, 'hex');
}

export function displayPrefix(token: string): string {
  return `${token.slice(0, token.lastIndexOf('_') + 5)}…`;
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/** AES-256-GCM envelope for secrets that must stay usable (the webhook signing secret). */
export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
  /** A 32-byte key derived from the master key for one purpose (HMAC-SHA256 of the label): never stored, never shown. */
  derive(label: string): Buffer;
}

export function createSecretBox(masterKey: Buffer): SecretBox {
  if (masterKey.length !== 32) throw new Error('master key must be 32 bytes');
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `v1.${iv.toString('base64')}.${cipher.getAuthTag().toString('base64')}.${body.toString('base64')}`;
    },
    derive(label) {
      return createHmac('sha256', masterKey).update(`derive:${label}`).digest();
    },
    open(sealed) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('unknown secret envelope');
      const decipher = createDecipheriv('aes-256-gcm', masterKey, Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
    },
  };
}
