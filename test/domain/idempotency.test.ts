/**
 * runIdempotent (issue #17 item 5) over a real SQLite store: what is stored (results, 4xx errors
 * with their fields and the geofence type) and what is not (5xx and unexpected errors release the
 * claim, so the retry runs), and the in-flight answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite/store.js';
import { AppError, GeofenceError } from '../../src/domain/errors.js';
import { createIdempotencyService, type IdempotencyScope } from '../../src/domain/idempotency.js';
import { systemClock } from '../../src/ports/clock.js';
import { createUlidSource } from '../../src/ports/ids.js';
import type { Store } from '../../src/ports/store.js';

const dir = mkdtempSync(join(tmpdir(), 'exd-idempotency-'));
let store: Store;
let service: ReturnType<typeof createIdempotencyService>;
beforeAll(() => {
  store = createSqliteStore({ file: join(dir, 'store.sqlite') });
  service = createIdempotencyService({ store, clock: systemClock, ids: createUlidSource() });
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const scope: IdempotencyScope = { ownerId: 'm_domain', mode: 'test', operation: 'orders.cancel' };

/** An execute that counts its runs and answers `answer()` each time. */
function counted<T>(answer: () => Promise<T>) {
  const calls = { n: 0 };
  return { calls, execute: () => (calls.n++, answer()) };
}

describe('runIdempotent', () => {
  it('without a key just runs, every time', async () => {
    const { calls, execute } = counted(async () => 'done');
    expect(await service.runIdempotent({ scope, key: undefined, request: {}, execute })).toEqual({ value: 'done', replayed: false });
    await service.runIdempotent({ scope, key: undefined, request: {}, execute });
    expect(calls.n).toBe(2);
  });

  it('stores a 4xx error with its fields and replays it without running; a geofence refusal keeps its type', async () => {
    const refusal = new AppError('VALIDATION_ERROR', 'Invalid request: reason', { fields: [{ field: 'reason', message: 'too long' }] });
    const { calls, execute } = counted(async () => Promise.reject(refusal));
    await expect(service.runIdempotent({ scope, key: 'refused', request: { a: 1 }, execute })).rejects.toBe(refusal);
    const replay = await service.runIdempotent({ scope, key: 'refused', request: { a: 1 }, execute }).catch((e: unknown) => e);
    expect(replay).toBeInstanceOf(AppError);
    expect(replay).toMatchObject({ code: 'VALIDATION_ERROR', message: refusal.message, fields: refusal.fields });
    expect(calls.n).toBe(1);

    const geofence = counted(async () => Promise.reject(new GeofenceError({ distanceM: 120, radiusM: 20 })));
    await expect(service.runIdempotent({ scope, key: 'fence', request: {}, execute: geofence.execute })).rejects.toBeInstanceOf(GeofenceError);
    const again = await service.runIdempotent({ scope, key: 'fence', request: {}, execute: geofence.execute }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(GeofenceError);
    expect(again).toMatchObject({ distanceM: 120, radiusM: 20 });
    expect(geofence.calls.n).toBe(1);
  });

  it('keeps nothing for a 5xx or an unexpected error: the retry runs and its answer is the one kept', async () => {
    let fail: Error | null = new AppError('SERVICE_UNAVAILABLE', 'store down');
    const { calls, execute } = counted(async () => {
      if (fail) throw fail;
      return { ok: 1 };
    });
    await expect(service.runIdempotent({ scope, key: 'flaky', request: {}, execute })).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    fail = new Error('socket hang up');
    await expect(service.runIdempotent({ scope, key: 'flaky', request: {}, execute })).rejects.toThrow('socket hang up');
    fail = null;
    expect(await service.runIdempotent({ scope, key: 'flaky', request: {}, execute })).toEqual({ value: { ok: 1 }, replayed: false });
    expect(await service.runIdempotent({ scope, key: 'flaky', request: {}, execute })).toEqual({ value: { ok: 1 }, replayed: true });
    expect(calls.n).toBe(3);
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_FLIGHT while the first request runs, then replays its answer', async () => {
    let finish!: (v: string) => void;
    const slow = new Promise<string>((resolve) => (finish = resolve));
    const first = service.runIdempotent({ scope, key: 'slow', request: {}, execute: () => slow });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await expect(service.runIdempotent({ scope, key: 'slow', request: {}, execute: async () => 'other' })).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_FLIGHT', status: 409 });
    // Another request under the key is refused as reused, even in flight.
    await expect(service.runIdempotent({ scope, key: 'slow', request: { b: 2 }, execute: async () => 'other' })).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    finish('first');
    expect(await first).toEqual({ value: 'first', replayed: false });
    expect(await service.runIdempotent({ scope, key: 'slow', request: {}, execute: async () => 'other' })).toEqual({ value: 'first', replayed: true });
  });

  it('the answer is what the JSON keeps: the first caller gets the same value a replay gets', async () => {
    const value = { at: '2025-01-01T00:00:00.000Z', missing: undefined, nested: [1, { x: null }] };
    const first = await service.runIdempotent({ scope, key: 'json', request: {}, execute: async () => value });
    const replay = await service.runIdempotent({ scope, key: 'json', request: {}, execute: async () => value });
    expect(first.value).toStrictEqual({ at: value.at, nested: [1, { x: null }] });
    expect(replay.value).toStrictEqual(first.value);
  });
});
