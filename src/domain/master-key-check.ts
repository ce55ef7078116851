import type { Store } from '../ports/store.js';
import { createSecretBox } from './credentials.js';

export class MasterKeyMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MasterKeyMismatchError';
  }
}

/**
 * Refuses a master key that cannot open the API secrets already stored. Started anyway with another
 * key (a MASTER_KEY generated anew, a lost master.key), the service would fail later on every
 * webhook signature, storefront check and secret rotation. The first merchant's newest secret is
 * the sample: one list and one read at boot, nothing on an empty store (any key is then fine).
 */
export async function verifyMasterKey(options: { store: Pick<Store, 'merchants'>; masterKey: Buffer; keySource: string; storeName: string }): Promise<void> {
  const [merchant] = await options.store.merchants.list({ limit: 1 });
  if (!merchant) return;
  const [secret] = await options.store.merchants.listSecrets(merchant.id);
  if (!secret) return;
  try {
    createSecretBox(options.masterKey).open(secret.ciphertext);
  } catch {
    throw new MasterKeyMismatchError(
      `Refusing to start: the master key (${options.keySource}) cannot decrypt the API secrets stored in ${options.storeName}; ` +
        'they were encrypted with another key. Start with the key they were written with ' +
        '(docker compose: the MASTER_KEY in .env written once by deploy/init-secrets.sh; embedded mode: DATA_DIR/master.key).',
    );
  }
}
