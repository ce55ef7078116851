/**
 * Write commands own idempotency (issue #40 item 3): the service method takes the caller's key and
 * names its operation once, so every entrance (REST, GraphQL, anything else handed the services)
 * gets the same records by calling the same command. Over the real container (SQLite on disk).
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildContainer, type Container } from '../../src/container.js';
import type { MerchantPrincipal } from '../../src/domain/auth.js';
import { CONSOLIDATE_ORDERS } from '../../src/domain/batches.js';
import { ADVANCE_ORDER, COURIER_CONFIRM_DELIVERY, CONFIRM_RETURN, RELEASE_ORDER, REPORT_FAILED_ATTEMPT, REPORT_POSITION, SET_DUTY } from '../../src/domain/couriers.js';
import { UPDATE_SETTINGS } from '../../src/domain/merchants.js';
import { RECORD_COD_HAND_OVER, RECORD_COD_PAYOUT } from '../../src/domain/operators/audited-admin.js';
import { CONFIRM_DELIVERY, RESET_DELIVERY_PIN } from '../../src/domain/orders/delivery.js';
import { CANCEL_ORDER } from '../../src/domain/orders/service.js';
import { ADD_TIP } from '../../src/domain/orders/tips.js';
import { SANDBOX_ADVANCE } from '../../src/domain/sandbox.js';
import { START_RUN } from '../../src/domain/sandbox-runs.js';
import { REDELIVER, REDELIVER_FAILED } from '../../src/domain/webhooks/delivery-log.js';
import { CREATE_ENDPOINT, UPDATE_ENDPOINT } from '../../src/domain/webhooks/endpoints.js';
import { ADMIN_TOKEN, makeDataDir } from '../helpers/app.js';

const dataDir = makeDataDir();
let container: Container;
let principal: MerchantPrincipal;
beforeAll(async () => {
  container = await buildContainer(loadConfig({ DATA_DIR: dataDir, ADMIN_TOKEN, LOG_LEVEL: 'silent', SEED_DEMO: 'false' }));
  const created = await container.services.admin.createMerchant({ input: { name: 'Idempotent Commands' } });
  principal = await container.services.auth.authenticateApiKey({ apiKey: created.testKey });
}, 60_000);
afterAll(async () => {
  await container?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A call's key and a counter of the replays it was told about. */
function keyed(idempotencyKey: string) {
  const seen = { replays: 0 };
  return { seen, call: { idempotencyKey, onReplayed: () => void seen.replays++ } };
}

const prepTime = async () => (await container.services.merchants.getMerchant({ merchantId: principal.merchant.id })).settings.prepTimeMins;

describe('an idempotent command under a key', () => {
  it('runs once for both entrances: the second call (REST or GraphQL alike) answers the first result and writes nothing', async () => {
    const { merchants } = container.services;
    const first = keyed('cmd-settings-1');
    const updated = await merchants.updateMerchantSettings(Object.assign({ principal, input: { prepTimeMins: 7 } }, first.call));
    expect(updated.settings.prepTimeMins).toBe(7);
    expect(first.seen.replays).toBe(0);
    // A change without a key in between: a replay must not write 7 again.
    await merchants.updateMerchantSettings({ principal, input: { prepTimeMins: 9 } });
    const again = keyed('cmd-settings-1');
    const replayed = await merchants.updateMerchantSettings(Object.assign({ principal, input: { prepTimeMins: 7 } }, again.call));
    expect(replayed).toEqual(JSON.parse(JSON.stringify(updated)));
    expect(again.seen.replays).toBe(1);
    expect(await prepTime()).toBe(9);
  });

  it('refuses another input under the same key (422 IDEMPOTENCY_KEY_REUSED) and writes nothing', async () => {
    const { merchants } = container.services;
    await merchants.updateMerchantSettings({ principal, input: { prepTimeMins: 11 }, idempotencyKey: 'cmd-settings-2' });
    await expect(merchants.updateMerchantSettings({ principal, input: { prepTimeMins: 12 }, idempotencyKey: 'cmd-settings-2' })).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', status: 422 });
    expect(await prepTime()).toBe(11);
  });

  it('keeps one record per operation: the same key on another command runs it', async () => {
    const { merchants, batches } = container.services;
    await merchants.updateMerchantSettings({ principal, input: { prepTimeMins: 13 }, idempotencyKey: 'cmd-shared' });
    const other = keyed('cmd-shared');
    expect(await batches.consolidateOrders(Object.assign({ principal, input: { geohashZone: '66jcf', targetCarType: 'car' as const } }, other.call))).toEqual([]);
    expect(other.seen.replays).toBe(0);
  });

  it('tells a replayed 4xx answer too, and a command that moves money refuses to run without a key', async () => {
    const { orders, tips } = container.services;
    const first = keyed('cmd-missing-order');
    await expect(orders.cancelOrder(Object.assign({ principal, ref: 'EXD-NOPE', input: {} }, first.call))).rejects.toMatchObject({ code: 'ORDER_NOT_FOUND' });
    const again = keyed('cmd-missing-order');
    await expect(orders.cancelOrder(Object.assign({ principal, ref: 'EXD-NOPE', input: {} }, again.call))).rejects.toMatchObject({ code: 'ORDER_NOT_FOUND' });
    expect([first.seen.replays, again.seen.replays]).toEqual([0, 1]);
    await expect(tips.addTip({ principal, ref: 'EXD-NOPE', input: { amount: 1000 } })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR', fields: [{ field: 'idempotencyKey', message: 'is required' }],
    });
  });
});

describe('operation names', () => {
  it('each command names its own, once, and no two share one', () => {
    const names = [
      CANCEL_ORDER, CONFIRM_DELIVERY, RESET_DELIVERY_PIN, CONSOLIDATE_ORDERS, ADD_TIP,
      SET_DUTY, REPORT_POSITION, ADVANCE_ORDER, RELEASE_ORDER, COURIER_CONFIRM_DELIVERY, REPORT_FAILED_ATTEMPT, CONFIRM_RETURN,
      UPDATE_SETTINGS, CREATE_ENDPOINT, UPDATE_ENDPOINT, REDELIVER, REDELIVER_FAILED, SANDBOX_ADVANCE, START_RUN, RECORD_COD_HAND_OVER, RECORD_COD_PAYOUT,
    ];
    expect(new Set(names).size).toBe(names.length);
    // The names stored records carry: renaming one would orphan the records kept for 24 h.
    expect(names).toEqual([
      'orders.cancel', 'orders.deliver', 'orders.resetDeliveryPin', 'orders.consolidate', 'orders.tip',
      'couriers.duty', 'couriers.position', 'couriers.advance', 'couriers.release', 'couriers.deliver', 'couriers.failed_attempt', 'couriers.return',
      'merchants.settings', 'webhooks.create', 'webhooks.update', 'webhooks.redeliver', 'webhooks.redeliverFailed', 'sandbox.advance', 'sandbox.run', 'cod.handover', 'cod.payout',
    ]);
  });
});
