import { createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';

/** Standard Webhooks' signed content: "<id>.<timestamp>.<body>". */
export const signedContent = (options: { id: string; timestamp: number; body: string }) => `${options.id}.${options.timestamp}.${options.body}`;

/**
 * Standard Webhooks signature (standardwebhooks.com): base64 HMAC-SHA256 over
 * "<id>.<timestamp>.<body>" keyed with the base64-decoded part of each `whsec_` secret; one
 * `v1,<sig>` per secret, space-separated (both old and new during a rotation).
 */
export function signWebhook(options: { secrets: string[]; id: string; timestamp: number; body: string }): string {
  const content = signedContent(options);
  return options.secrets
    .map((secret) => {
      const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
      return `v1,${createHmac('sha256', key).update(content).digest('base64')}`;
    })
    .join(' ');
}

/**
 * Standard Webhooks asymmetric signature: `v1a,<base64 Ed25519 signature>` over the same signed
 * content, one per private key (PKCS#8 DER, base64), space-separated (current and previous during
 * a rotation's overlap). Ed25519 is deterministic: the same key and content give the same signature.
 */
export function signWebhookAsymmetric(options: { privateKeys: string[]; id: string; timestamp: number; body: string }): string {
  const content = Buffer.from(signedContent(options));
  return options.privateKeys
    .map((der) => `v1a,${sign(null, content, createPrivateKey({ key: Buffer.from(der, 'base64'), format: 'der', type: 'pkcs8' })).toString('base64')}`)
    .join(' ');
}

/** A new Ed25519 private key, PKCS#8 DER in base64 (what is sealed at rest). */
export function generateSigningKey(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
}

/**
 * The public half of a signing key as published: the raw 32-byte key in base64 (what Standard
 * Webhooks' libraries take after `whpk_`) and SPKI PEM (what node:crypto, OpenSSL and most
 * libraries load directly).
 */
export function publicKeyOf(privateKeyDer: string): { raw: string; pem: string } {
  const publicKey = createPublicKey(createPrivateKey({ key: Buffer.from(privateKeyDer, 'base64'), format: 'der', type: 'pkcs8' }));
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  // An Ed25519 SPKI is a fixed 12-byte prefix and the 32-byte key.
  return { raw: spki.subarray(spki.length - 32).toString('base64'), pem: publicKey.export({ format: 'pem', type: 'spki' }).toString() };
}
