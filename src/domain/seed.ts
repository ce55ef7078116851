import type { AdminService } from './admin.js';
import type { MerchantService } from './merchants.js';
import type { Store } from '../ports/store.js';
import { INTEGRATION_NAMES } from './types.js';

/** In production the seeded credentials are written to this owner-only file under DATA_DIR, never to the log stream. */
export const DEMO_CREDENTIALS_FILE = 'demo-credentials.txt';

export const DEMO_MERCHANT = {
  name: 'Demo Merchant',
  address: 'Av. Providencia 1234, Providencia',
  storefrontDomain: 'demo-shop.myshopify.com',
  /**
   * The quick-start order should still be on its way when a newcomer opens its tracking link: at 2×
   * real time its drive takes about 7 minutes (85 s at the operator's default 10×).
   */
  sandboxSpeed: 2,
};

/**
 * Seeds an empty store with a demo merchant (integrations approved) and returns its credentials,
 * which the caller prints once; returns null when the store already has merchants.
 */
export async function seedDemoMerchant(deps: { store: Store; admin: AdminService; merchants: MerchantService }) {
  if ((await deps.store.merchants.count()) > 0) return null;
  const created = await deps.admin.createMerchant({ input: { name: DEMO_MERCHANT.name, address: DEMO_MERCHANT.address } });
  for (const integration of INTEGRATION_NAMES) {
    await deps.admin.setIntegrationStatus({ input: { merchantId: created.merchantId, integration, status: 'approved' } });
  }
  await deps.merchants.configureMerchant({
    merchantId: created.merchantId,
    input: { storefrontDomain: DEMO_MERCHANT.storefrontDomain, sandboxSpeed: DEMO_MERCHANT.sandboxSpeed },
  });
  return created;
}
