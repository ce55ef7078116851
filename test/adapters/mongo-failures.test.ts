import { MongoBulkWriteError, MongoNetworkError, MongoNetworkTimeoutError, MongoServerError, MongoServerSelectionError, MongoWriteConcernError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { isMongoUnavailable, isTransientTransactionError, isUnknownCommitResult } from '../../src/adapters/mongo/failures.js';
import { FAIL_FAST_MS, guardRepository, isIdempotent } from '../../src/adapters/mongo/guard.js';
import { isUnavailable, StoreUnavailableError } from '../../src/ports/unavailable.js';

/** A server error as the driver builds it from a server reply. */
const serverError = (code: number, codeName: string, labels: string[] = []) =>
  new MongoServerError({ ok: 0, code, codeName, errmsg: `${codeName} (test)`, errorLabels: labels });

describe('MongoDB failure classification (real driver error objects)', () => {
  it.each([
    [10107, 'NotWritablePrimary'],
    [189, 'PrimarySteppedDown'],
    [11602, 'InterruptedDueToReplStateChange'],
    [11600, 'InterruptedAtShutdown'],
    [91, 'ShutdownInProgress'],
    [13435, 'NotPrimaryNoSecondaryOk'],
    [13436, 'NotPrimaryOrSecondary'],
    [10058, 'LegacyNotPrimary'],
    [64, 'WriteConcernFailed'],
    [50, 'MaxTimeMSExpired'],
    [6, 'HostUnreachable'],
    [89, 'NetworkTimeout'],
    [9001, 'SocketException'],
  ])('server code %i (%s) is unavailable', (code, name) => {
    expect(isMongoUnavailable(serverError(code, name))).toBe(true);
  });

  it('an unknown code carrying RetryableWriteError or TransientTransactionError is unavailable', () => {
    expect(isMongoUnavailable(serverError(99999, 'Future', ['RetryableWriteError']))).toBe(true);
    const transient = serverError(112, 'WriteConflict', ['TransientTransactionError']);
    expect(isMongoUnavailable(transient)).toBe(true);
    expect(isTransientTransactionError(transient)).toBe(true);
  });

  it('network, timeout and server selection errors are unavailable', () => {
    expect(isMongoUnavailable(new MongoNetworkError('connection reset'))).toBe(true);
    expect(isMongoUnavailable(new MongoNetworkTimeoutError('socket timed out'))).toBe(true);
    expect(isMongoUnavailable(new MongoServerSelectionError('no primary', { type: 'ReplicaSetNoPrimary' } as never))).toBe(true);
  });

  it('write concern errors are unavailable, also when reported beside a findAndModify or bulk write result', () => {
    const wce = new MongoWriteConcernError({ writeConcernError: { code: 64, errmsg: 'waiting for replication timed out', errInfo: { wtimeout: true } } } as never);
    expect(isMongoUnavailable(wce)).toBe(true);
    const findAndModify = Object.assign(serverError(0, ''), { writeConcernError: { code: 100, errmsg: 'Not enough data-bearing nodes' } });
    findAndModify.code = undefined;
    expect(isMongoUnavailable(findAndModify)).toBe(true);
    const bulk = new MongoBulkWriteError(
      { message: 'write concern', code: 64, writeErrors: [] } as never,
      { writeConcernErrors: [{ code: 64, errmsg: 'timeout' }], insertedCount: 0, matchedCount: 1, modifiedCount: 1, deletedCount: 0, upsertedCount: 0, insertedIds: {}, upsertedIds: {} } as never,
    );
    expect(isMongoUnavailable(bulk)).toBe(true);
  });

  it("the caller's or our own failures are not unavailable: duplicate key, validation, bad value, plain errors", () => {
    expect(isMongoUnavailable(serverError(11000, 'DuplicateKey'))).toBe(false);
    expect(isMongoUnavailable(serverError(121, 'DocumentValidationFailure'))).toBe(false);
    expect(isMongoUnavailable(serverError(2, 'BadValue'))).toBe(false);
    expect(isMongoUnavailable(new Error('MongoNetworkError lookalike'))).toBe(false);
  });

  it('a commit whose result is unknown is committed again; a transient one is not (the transaction is)', () => {
    expect(isUnknownCommitResult(serverError(50, 'MaxTimeMSExpired', ['UnknownTransactionCommitResult']))).toBe(true);
    expect(isUnknownCommitResult(new MongoNetworkError('reset'))).toBe(true);
    expect(isUnknownCommitResult(serverError(112, 'WriteConflict', ['TransientTransactionError']))).toBe(false);
    expect(isUnknownCommitResult(serverError(11000, 'DuplicateKey'))).toBe(false);
  });
});

describe('guarded MongoDB repository', () => {
  it('turns an unavailable MongoDB into the port-level StoreUnavailableError (→ 503), keeping the cause', async () => {
    const stepDown = serverError(10107, 'NotWritablePrimary', ['RetryableWriteError']);
    const repo = guardRepository('orders', { apply: () => Promise.reject(stepDown) }, 1000);
    const error = await repo.apply().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(isUnavailable(error)).toBe(true);
    expect((error as Error).cause).toBe(stepDown);
  });

  it('lets other errors through unchanged', async () => {
    const duplicate = serverError(11000, 'DuplicateKey');
    const repo = guardRepository('orders', { create: () => Promise.reject(duplicate) }, 1000);
    await expect(repo.create()).rejects.toBe(duplicate);
  });

  it('retries an idempotent call once (reads, requeue, revoke, positions), a non-idempotent one never', async () => {
    expect(['orders.findById', 'orders.listQueued', 'merchants.count', 'webhooks.requeue', 'apiKeys.revoke', 'couriers.setLocations'].every(isIdempotent)).toBe(true);
    expect(['orders.apply', 'orders.create', 'couriers.setStatus', 'webhooks.claimDue'].some(isIdempotent)).toBe(false);
    let calls = 0;
    const flaky = () => (++calls === 1 ? Promise.reject(serverError(189, 'PrimarySteppedDown')) : Promise.resolve(3));
    const requeue = guardRepository('webhooks', { requeue: flaky }, 1000).requeue;
    await expect(requeue()).resolves.toBe(3);
    expect(calls).toBe(2);
    calls = 0;
    const apply = guardRepository('orders', { apply: flaky }, 1000).apply;
    await expect(apply()).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(calls).toBe(1);
  });

  it('answers a call that hangs with StoreUnavailableError at its deadline', async () => {
    const repo = guardRepository('orders', { findById: () => new Promise<never>(() => {}) }, 200);
    const started = Date.now();
    await expect(repo.findById()).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(Date.now() - started).toBeLessThan(600);
  });

  it('after a call waited in vain, the store’s other calls fail at once for FAIL_FAST_MS, then are tried again', async () => {
    const circuit = { failFastUntil: 0 };
    let answering = false;
    let tried = 0;
    const orders = guardRepository('orders', { findById: () => new Promise<never>(() => {}) }, 200, circuit);
    const quotes = guardRepository('quotes', { insert: () => (tried++, answering ? Promise.resolve('ok') : new Promise<never>(() => {})) }, 200, circuit);
    await expect(orders.findById()).rejects.toBeInstanceOf(StoreUnavailableError);
    const started = Date.now();
    await expect(quotes.insert()).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(Date.now() - started).toBeLessThan(50);
    expect(tried).toBe(0);
    answering = true;
    circuit.failFastUntil = Date.now() - 1; // the window (FAIL_FAST_MS) has passed
    await expect(quotes.insert()).resolves.toBe('ok');
    expect(FAIL_FAST_MS).toBeLessThanOrEqual(1000);
  });

  it('a quick refusal (step-down) does not make the other calls fail', async () => {
    const circuit = { failFastUntil: 0 };
    const stepDown = serverError(10107, 'NotWritablePrimary');
    await expect(guardRepository('orders', { apply: () => Promise.reject(stepDown) }, 1000, circuit).apply()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(guardRepository('orders', { findById: () => Promise.resolve('found') }, 1000, circuit).findById()).resolves.toBe('found');
  });
});
