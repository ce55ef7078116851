/**
 * The jongodb test server gets a store deadline fitted to it (test/helpers/mongo.ts): on a busy
 * machine it stalls past the production 1.5 s, and the contract suites failed on that, not on a
 * fault of the code under test. Here a private jongodb is frozen (SIGSTOP) for longer than the
 * production deadline while a contract store's call waits: the call still succeeds. A real MongoDB
 * (MONGODB_URL) keeps the production deadline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_OPERATION_TIMEOUT_MS } from '../../src/adapters/mongo/database.js';
import type { Store } from '../../src/ports/store.js';
import { skipOrFail } from '../helpers/fault-suite.js';
import { jongodbBinary, mongoNodeEnv, startJongodb, testStoreTimeoutMs, uniqueDbName, type MongoServer } from '../helpers/mongo.js';
import { createContractStore } from './mongo-suite.js';

const binary = jongodbBinary();
const skipReason = binary ? '' : skipOrFail('jongodb deadline test skipped: no jongodb binary');

describe.skipIf(!binary)(`the jongodb test server's store deadline${skipReason ? ` (${skipReason})` : ''}`, () => {
  let server: MongoServer;
  let store: Store;
  beforeAll(async () => {
    server = await startJongodb(binary!);
    store = await createContractStore(server, uniqueDbName('exd_test_deadline'));
  }, 60_000);
  afterAll(async () => {
    server?.process?.kill('SIGCONT');
    await store?.close();
    await server?.stop();
  });

  it('is longer than the production default, and only on jongodb', () => {
    expect(testStoreTimeoutMs('jongodb')).toBeGreaterThanOrEqual(4 * DEFAULT_OPERATION_TIMEOUT_MS);
    expect(testStoreTimeoutMs('external')).toBeUndefined();
    expect(mongoNodeEnv({ url: 'mongodb://x', kind: 'jongodb' }).STORE_TIMEOUT_MS).toBe(String(testStoreTimeoutMs('jongodb')));
    expect(mongoNodeEnv({ url: 'mongodb://x', kind: 'external' })).toEqual({ MONGODB_URL: 'mongodb://x' });
  });

  it('a store call outlives a jongodb stall longer than the production deadline', async () => {
    await store.ping();
    const stallMs = DEFAULT_OPERATION_TIMEOUT_MS + 1000;
    server.process!.kill('SIGSTOP');
    const call = store.merchants.findById('mer_missing');
    setTimeout(() => server.process!.kill('SIGCONT'), stallMs);
    await expect(call).resolves.toBeNull();
    await store.ping();
  }, 60_000);
});
