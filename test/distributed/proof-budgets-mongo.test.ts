/**
 * The upload budgets (issue #39) on the distributed store: two app nodes on one MongoDB (jongodb,
 * or MONGODB_URL) share the counters, so a courier alternating between them gets no more than one
 * node would give: a stop's signatures and a courier's bytes per day are counted once for both.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { mongoForTestFile, mongoNodeEnv, uniqueDbName } from '../helpers/mongo.js';
import { startOrdersApp } from '../orders/support.js';
import { assignedOrder } from '../realtime/support.js';
import { photo, signature } from '../courier-app/images.js';

const { mongo, skipReason } = await mongoForTestFile();
if (!mongo) console.warn(skipReason);

async function upload(t: TestApp, token: string, id: string, kind: string, body: Buffer, type: string) {
  const res = await fetch(`${t.url}/api/v1/couriers/me/orders/${id}/proof?kind=${kind}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': type }, body: new Uint8Array(body) });
  return { status: res.status, body: (await res.json()) as { error?: { code: string } } };
}

describe.skipIf(!mongo)('upload budgets across two nodes on one MongoDB', () => {
  let a: TestApp;
  let b: TestApp;
  let image: Buffer;
  let liveKey: string;
  beforeAll(async () => {
    image = await photo(300, 300);
    const env = {
      ...mongoNodeEnv(mongo!), MONGODB_DB: uniqueDbName('proof_budgets'), MASTER_KEY: randomBytes(32).toString('base64'), WEBHOOK_WORKER: 'false',
      PROOF_COURIER_DAILY_BYTES: String(Math.max(1024, Math.floor(image.length * 3.5))),
    };
    a = await startOrdersApp({ env });
    b = await startOrdersApp({ env });
    liveKey = (await a.createMerchant({ name: 'Two Node Proofs' })).liveKey;
  }, 60_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });

  it('a stop\'s 2 signatures are counted once for both nodes: the third, on either, is 409 PROOF_QUOTA_EXCEEDED', async () => {
    const { order, courier } = await assignedOrder(a, liveKey);
    const sig = await signature();
    const answers = [];
    for (const node of [a, b, a, b]) answers.push(await upload(node, courier.token, order.booking_id, 'signature', sig, 'image/png'));
    expect(answers.map((x) => x.status)).toEqual([201, 201, 409, 409]);
    expect(answers[2]!.body.error?.code).toBe('PROOF_QUOTA_EXCEEDED');
  });

  it('a courier\'s bytes per day are counted once for both nodes: past the budget, either node answers 429 PROOF_BUDGET_EXCEEDED', async () => {
    const { order, courier } = await assignedOrder(a, liveKey);
    expect(image.length * 4).toBeGreaterThan(Math.max(1024, Math.floor(image.length * 3.5)));
    const answers = [];
    for (const node of [a, b, a, b]) answers.push((await upload(node, courier.token, order.booking_id, 'photo', image, 'image/jpeg')).status);
    expect(answers).toEqual([201, 201, 201, 429]);
  });
});
