/**
 * Every documented request body, mutated field by field: wrong types (null, numbers, strings,
 * arrays, objects), huge and unicode strings, number- and date-like strings, prototype keys,
 * missing fields, random extra fields. Valid credentials and real ids, so the handlers see them.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  credentialFor,
  describeRequest,
  expectAppIntact,
  expectMemoryBounded,
  expectRestAnswer,
  fcParams,
  memorySnapshot,
  mutatedBody,
  pathValues,
  runsFor,
  startFuzzApp,
  urlOf,
  FUZZ_RUNS,
  timeoutFor,
  type FuzzApp,
  type Operation,
} from './support.js';

/** This file's share of FUZZ_RUNS, split evenly over the operations that take a body. */
const SHARE = 0.4;

describe('fuzz: documented request bodies', () => {
  let app: FuzzApp;
  let memoryBefore: ReturnType<typeof memorySnapshot>;
  const withBody: Operation[] = [];

  beforeAll(async () => {
    app = await startFuzzApp();
    withBody.push(...app.operations.filter((op) => op.body));
    memoryBefore = memorySnapshot();
  });
  afterAll(async () => {
    console.log(`fuzz rest-bodies: ${app?.count() ?? 0} requests (FUZZ_RUNS=${FUZZ_RUNS})`);
    await app?.t.stop();
  });

  it('covers every operation the OpenAPI document gives a JSON body', () => {
    const names = withBody.map((op) => `${op.method} ${op.path}`);
    expect(names).toEqual(expect.arrayContaining(['POST /orders', 'POST /shipping/quote', 'PATCH /webhooks/{id}', 'POST /couriers/me/location']));
    expect(names.length).toBeGreaterThanOrEqual(18);
  });

  it('no mutated body gets a 5xx, and every refusal is in the error shape', async () => {
    const perOp = runsFor(SHARE / Math.max(1, withBody.length || 20));
    for (const op of withBody) {
      await fc.assert(
        fc.asyncProperty(mutatedBody(op), pathValues(app, op), credentialFor(app, op), fc.boolean(), async (body, values, credential, idempotent) => {
          const request = {
            method: op.method,
            path: urlOf(app, op, values),
            headers: { ...credential, 'content-type': 'application/json', ...(op.path === '/orders' && idempotent && { 'idempotency-key': 'fuzz-key' }) },
            body: JSON.stringify(body) ?? 'null',
          };
          expectRestAnswer(await app.send(request), describeRequest(request));
        }),
        fcParams(perOp),
      );
    }
  }, timeoutFor(FUZZ_RUNS * SHARE));

  it('the app is intact afterwards: health answers, nothing logged at error level, no prototype pollution', async () => {
    await expectAppIntact(app);
  });

  it('memory stays bounded', () => {
    expectMemoryBounded(memoryBefore, 'fuzz rest-bodies');
  });
});
