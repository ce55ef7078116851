import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWriteQueue, openSqliteDatabase, type SqliteDatabase, type WriteQueue } from '../../src/adapters/sqlite/database.js';
import { createWriteGuard } from '../../src/adapters/sqlite/write-guard.js';
import { StoreUnavailableError } from '../../src/ports/unavailable.js';

describe('SQLite group commit (createWriteQueue)', () => {
  let dir: string;
  let db: SqliteDatabase;
  let other: SqliteDatabase;
  let inTransaction: WriteQueue;
  const insert = (name: string) => () => db.prepare('INSERT INTO t (name) VALUES (?)').run(name).lastInsertRowid;
  const namesSeenBy = (conn: SqliteDatabase) => (conn.prepare('SELECT name FROM t ORDER BY name').all() as Array<{ name: string }>).map((r) => r.name);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'write-queue-'));
    db = openSqliteDatabase(join(dir, 'db.sqlite'));
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)');
    other = openSqliteDatabase(join(dir, 'db.sqlite'));
    inTransaction = createWriteQueue(db);
  });

  afterEach(() => {
    db.close();
    other.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers each write with its own result once it is committed (visible to another connection)', async () => {
    const ids = await Promise.all(['a', 'b', 'c'].map((name) => inTransaction(insert(name))));
    expect(ids.map(Number)).toEqual([1, 2, 3]);
    expect(namesSeenBy(other)).toEqual(['a', 'b', 'c']);
  });

  it('commits the writes of one event-loop turn together: none is visible to others before the last ran', async () => {
    const seenDuringGroup: string[][] = [];
    await Promise.all([
      inTransaction(insert('a')),
      inTransaction(() => {
        seenDuringGroup.push(namesSeenBy(db), namesSeenBy(other));
        return insert('b')();
      }),
    ]);
    expect(seenDuringGroup).toEqual([['a'], []]);
    expect(namesSeenBy(other)).toEqual(['a', 'b']);
  });

  it('rolls back only the write that throws; the rest of its group commits', async () => {
    const results = await Promise.allSettled([
      inTransaction(insert('a')),
      inTransaction(() => {
        insert('half-done')();
        return insert('a')(); // unique violation: this write's rows must all go
      }),
      inTransaction(insert('c')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE constraint failed/);
    expect(namesSeenBy(other)).toEqual(['a', 'c']);
  });

  it('waits for the write lock off the event loop (timers keep firing) and commits once another connection releases it', async () => {
    other.prepare('BEGIN IMMEDIATE').run();
    const turns: string[] = [];
    const write = inTransaction(insert('a')).then((id) => (turns.push('committed'), id));
    await new Promise((resolve) => setTimeout(resolve, 50));
    turns.push('timer');
    other.prepare('ROLLBACK').run();
    expect(Number(await write)).toBe(1);
    expect(turns).toEqual(['timer', 'committed']);
    expect(namesSeenBy(other)).toEqual(['a']);
  });

  it('fails every write of a group as unavailable once the lock wait is over, and writes nothing', async () => {
    const queue = createWriteQueue(db, createWriteGuard(db, { lockWaitMs: 200 }));
    other.prepare('BEGIN IMMEDIATE').run();
    const results = await Promise.allSettled([queue(insert('a')), queue(insert('b'))]);
    other.prepare('ROLLBACK').run();
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    const reason = (results[0] as PromiseRejectedResult).reason as Error;
    expect(reason).toBeInstanceOf(StoreUnavailableError);
    expect(reason.message).toMatch(/another process holds the database write lock/);
    expect(namesSeenBy(other)).toEqual([]);
    expect(await queue(insert('later'))).toBe(1);
  });

  it('fails the whole group when a write makes SQLite roll back the transaction itself (disk full)', async () => {
    const pages = db.pragma('page_count', { simple: true }) as number;
    db.pragma(`max_page_count = ${pages + 2}`);
    const big = 'x'.repeat(64 * 1024); // more pages than the file may grow by
    const results = await Promise.allSettled([inTransaction(insert('a')), inTransaction(insert(big)), inTransaction(insert('c'))]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    // 503, not 500: the disk may take writes again.
    expect((results[0] as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
    expect(namesSeenBy(other)).toEqual([]);
    db.pragma('max_page_count = 1073741823');
    expect(await inTransaction(insert('after'))).toBeGreaterThan(0);
    expect(namesSeenBy(other)).toEqual(['after']);
  });

  it('flush() commits the waiting group at once (what closing the store does first)', async () => {
    const pending = inTransaction(insert('a'));
    inTransaction.flush();
    expect(namesSeenBy(other)).toEqual(['a']);
    expect(Number(await pending)).toBe(1);
  });

  it('starts a new group for writes asked after a commit', async () => {
    await inTransaction(insert('a'));
    const seen = await inTransaction(() => namesSeenBy(other));
    expect(seen).toEqual(['a']);
  });
});
