import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite/store.js';
import type { Store } from '../../src/ports/store.js';
import { StoreUnavailableError } from '../../src/ports/unavailable.js';

const LOCKED = { status: 'degraded', reason: 'another process holds the database write lock' };

/** Writes that do not go through the group-commit queue (leases here) and the store's health probe. */
describe('SQLite write guard: another connection holds the write lock', () => {
  let dir: string;
  let file: string;
  let store: Store;
  let other: Database.Database;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'write-guard-'));
    file = join(dir, 'db.sqlite');
    store = createSqliteStore({ file, lockWaitMs: 1000 });
    other = new Database(file);
  });
  afterEach(async () => {
    if (other.inTransaction) other.exec('ROLLBACK');
    other.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a direct write waits off the event loop and lands once the lock is released within the wait', async () => {
    other.exec('BEGIN IMMEDIATE');
    const turns: string[] = [];
    const write = store.leases.acquire({ name: 'job', owner: 'me', ttlMs: 60_000 }).then((taken) => (turns.push('written'), taken));
    await new Promise((resolve) => setTimeout(resolve, 50));
    turns.push('timer');
    other.exec('ROLLBACK');
    expect(await write).toBe(true);
    expect(turns).toEqual(['timer', 'written']);
  });

  it('a direct write fails as unavailable after the wait, and /health is degraded until the lock is free', async () => {
    other.exec('BEGIN IMMEDIATE');
    expect(await store.ping()).toEqual(LOCKED);
    await expect(store.leases.acquire({ name: 'job', owner: 'me', ttlMs: 60_000 })).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await store.ping()).toEqual(LOCKED);
    other.exec('ROLLBACK');
    expect(await store.ping()).toEqual({ status: 'ok' });
    expect(await store.leases.acquire({ name: 'job', owner: 'me', ttlMs: 60_000 })).toBe(true);
  });
});
