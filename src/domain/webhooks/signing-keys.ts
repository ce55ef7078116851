import type { Clock } from '../../ports/clock.js';
import type { Store } from '../../ports/store.js';
import type { MerchantPrincipal } from '../auth.js';
import type { SecretBox } from '../credentials.js';
import { assertPermitted } from '../members/roles.js';
import type { MerchantSecretRecord } from '../types.js';
import { generateSigningKey, publicKeyOf } from './signing.js';

/** A signing key in force: its id is the id of the secret record it belongs to. */
export interface SigningKey {
  id: string;
  createdAt: string;
  /** Set during a rotation's overlap: the key signs (and is published) until then. */
  expiresAt: string | null;
  /** The HMAC secret (`whsec_…`) of `v1` signatures. */
  secret: string;
  /** The Ed25519 private key (PKCS#8 DER, base64) of `v1a` signatures. */
  privateKey: string;
}

/** A published public key (GET /webhooks/public-keys, GraphQL `webhookPublicKeys`). */
export interface PublishedKey {
  id: string;
  algorithm: 'ed25519';
  /** The raw 32-byte key, base64 (Standard Webhooks' `whpk_` form without the prefix). */
  publicKey: string;
  /** The same key as SPKI PEM (node:crypto's createPublicKey takes it as it is). */
  publicKeyPem: string;
  createdAt: string;
  expiresAt: string | null;
}

export type SigningKeyService = ReturnType<typeof createSigningKeyService>;

/**
 * The merchant's webhook signing keys: one HMAC secret and one Ed25519 key pair per secret record,
 * sealed with the master key and rotated together (the admin's and the console's secret rotation),
 * so the overlap of the one is the overlap of the other. A record made before asymmetric
 * signatures gets its key pair on first use (the first node's key wins a race).
 */
export function createSigningKeyService(deps: { store: Store; secretBox: SecretBox; clock: Clock }) {
  const { store, secretBox, clock } = deps;

  async function sealedKeyOf(record: MerchantSecretRecord): Promise<string> {
    return record.signingKey ?? store.merchants.setSigningKey({ secretId: record.id, sealed: secretBox.seal(generateSigningKey()) });
  }

  /** The keys in force now, newest first: the current one, and the previous one during an overlap. */
  async function keysInForce(options: { merchantId: string }): Promise<SigningKey[]> {
    const now = clock.now().toISOString();
    const records = (await store.merchants.listSecrets(options.merchantId)).filter((r) => !r.expiresAt || r.expiresAt > now);
    return Promise.all(
      records.map(async (r) => ({
        id: r.id, createdAt: r.createdAt, expiresAt: r.expiresAt, secret: secretBox.open(r.ciphertext), privateKey: secretBox.open(await sealedKeyOf(r)),
      })),
    );
  }

  /** The public keys of `v1a` signatures in force, newest first, with their ids (every role may read them). */
  async function publicKeys(options: { principal: MerchantPrincipal }): Promise<PublishedKey[]> {
    assertPermitted(options.principal, 'read');
    const keys = await keysInForce({ merchantId: options.principal.merchant.id });
    return keys.map((k) => {
      const pub = publicKeyOf(k.privateKey);
      return { id: k.id, algorithm: 'ed25519', publicKey: pub.raw, publicKeyPem: pub.pem, createdAt: k.createdAt, expiresAt: k.expiresAt };
    });
  }

  return { keysInForce, publicKeys };
}
