/**
 * Positions wait for the next batch (POSITION_FLUSH_MS), except the one that makes an available
 * courier live again: other nodes check the store before they dispatch to a geo-index entry, so
 * that one is in the store when the report is answered (found by the two-node MongoDB test: an
 * order created within a second of a courier's first report evicted the courier as "not live").
 */
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { buildContainer } from '../../src/container.js';
import { loadConfig } from '../../src/config.js';
import { createSqliteStore } from '../../src/adapters/sqlite/store.js';
import { makeDataDir } from '../helpers/app.js';

const dataDir = makeDataDir();
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the position that makes a courier live is written at once', () => {
  it('first report of an available courier: in the store at once; the next ones with the batch', async () => {
    const container = await buildContainer(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', SEED_DEMO: 'false', SANDBOX_SIMULATOR: 'false', POSITION_FLUSH_MS: '10000' }));
    // Another connection to the same file: what another process (node) reads.
    const elsewhere = createSqliteStore({ file: join(dataDir, 'express-delivery.sqlite') });
    try {
      const { services } = container;
      const { token } = await services.admin.createCourier({ input: { name: 'Prompt Courier', phone: '+56987654321', vehicle: 'motorcycle', plate: 'PR0001', mode: 'live' } });
      const { courier } = await services.auth.authenticateCourier({ token });
      await services.couriers.setDuty({ courier, input: { onDuty: true } });

      const first = { lat: -33.4372, lng: -70.6506 };
      await services.couriers.reportSessionPosition({ courierId: courier.id, input: first });
      expect((await elsewhere.couriers.findById(courier.id))?.location).toStrictEqual(first);

      const second = { lat: -33.4375, lng: -70.6509 };
      await services.couriers.reportSessionPosition({ courierId: courier.id, input: second });
      expect((await elsewhere.couriers.findById(courier.id))?.location).toStrictEqual(first);
      expect((await services.couriers.getProfile({ courier })).location).toStrictEqual(second);

      await container.positions!.flush();
      expect((await elsewhere.couriers.findById(courier.id))?.location).toStrictEqual(second);
    } finally {
      await elsewhere.close();
      await container.close();
    }
  });
});
