import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../../src/adapters/sqlite/database.js';
import { vacuumSqliteStore } from '../../src/adapters/sqlite/space.js';
import { createSqliteStore, SQLITE_FILE_NAME } from '../../src/adapters/sqlite/store.js';
import { createRetention, RECLAIM_STEP_PAGES } from '../../src/domain/retention.js';
import { systemClock } from '../../src/ports/clock.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Waits for a condition (a busy machine is slow, never wrong): fails after 30 s. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 30_000; !condition(); await sleep(20)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}
const DOC = JSON.stringify({ body: 'x'.repeat(3000) });
const FEED_ROWS = 6000; // ~18 MB, ~4,500 pages of 4 KiB

/** Freed pages go back to the filesystem (auto_vacuum = INCREMENTAL), on a real file on disk. */
describe('SQLite: space given back after retention', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'reclaim-'));
    file = join(dir, SQLITE_FILE_NAME);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const fillFeed = (db: Database.Database) => {
    const insert = db.prepare("INSERT INTO event_feed (merchant_id, mode, position, id, created_at, doc) VALUES ('m_1', 'live', ?, ?, '2001-01-01T00:00:00.000Z', ?)");
    db.transaction(() => {
      for (let i = 1; i <= FEED_ROWS; i++) insert.run(i, `ev_${i}`, DOC);
    })();
  };

  it('a new store file is INCREMENTAL; after retention deletes many rows, the free list goes down in bounded steps and the file shrinks', async () => {
    const store = createSqliteStore({ dataDir: dir });
    const side = new Database(file);
    const freeList = () => side.pragma('freelist_count', { simple: true }) as number;
    try {
      expect(side.pragma('auto_vacuum', { simple: true })).toBe(2);
      fillFeed(side);
      await until(() => statSync(file).size > 15_000_000, 'the checkpointer to copy the rows into the file');
      const steps: Array<{ freed: number; freeAfter: number }> = [];
      const reclaim = store.reclaimSpace.bind(store);
      store.reclaimSpace = async (options) => {
        const freed = await reclaim(options);
        steps.push({ freed, freeAfter: freeList() });
        return freed;
      };
      const retention = createRetention({ store, clock: systemClock, webhookMs: 1000, orderEventsMs: 1000 });
      const sizeBefore = statSync(file).size;
      const report = await retention.pruneStorage();
      expect(report.feedEvents).toBe(FEED_ROWS);
      expect(report.freedPages).toBeGreaterThan(4000);
      // Bounded steps, each giving back at most RECLAIM_STEP_PAGES, the free list shorter after each.
      expect(steps.length).toBeGreaterThanOrEqual(Math.ceil(report.freedPages / RECLAIM_STEP_PAGES));
      for (const [i, step] of steps.entries()) {
        expect(step.freed).toBeLessThanOrEqual(RECLAIM_STEP_PAGES);
        if (i > 0 && step.freed > 0) expect(step.freeAfter).toBeLessThan(steps[i - 1]!.freeAfter);
      }
      expect(freeList()).toBeLessThan(RECLAIM_STEP_PAGES);
      // The file is cut once the checkpointer has copied the last step (WAL mode).
      await until(() => statSync(file).size < sizeBefore - 15_000_000, 'the file to shrink');
      expect(side.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      side.close();
      await store.close();
    }
  });

  it('a file made before (auto_vacuum = NONE) gives nothing back until db:vacuum rebuilt it once, INCREMENTAL from then on', async () => {
    const old = new Database(file);
    old.pragma('journal_mode = WAL');
    old.exec('CREATE TABLE junk (body TEXT)');
    old.close();
    const store = createSqliteStore({ dataDir: dir });
    const side = new Database(file);
    try {
      expect(side.pragma('auto_vacuum', { simple: true })).toBe(0);
      fillFeed(side);
      side.exec('DELETE FROM event_feed');
      expect(side.pragma('freelist_count', { simple: true })).toBeGreaterThan(4000);
      expect(await store.reclaimSpace({ maxPages: RECLAIM_STEP_PAGES })).toBe(0);
    } finally {
      side.close();
      await store.close();
    }
    const vacuum = vacuumSqliteStore({ dataDir: dir });
    expect(vacuum.bytesAfter).toBeLessThan(vacuum.bytesBefore - 15_000_000);
    const reopened = openSqliteDatabase(file);
    try {
      expect(reopened.pragma('auto_vacuum', { simple: true })).toBe(2);
      expect(reopened.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      reopened.close();
    }
  });
});
