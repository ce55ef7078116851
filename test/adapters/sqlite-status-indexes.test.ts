import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../../src/adapters/sqlite/database.js';
import { statusInSql, STATUS_SET_INDEXES } from '../../src/adapters/sqlite/status-filters.js';

describe("SQLite's status-set indexes follow the domain's sets", () => {
  let dir: string;
  beforeEach(() => void (dir = mkdtempSync(join(tmpdir(), 'status-indexes-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("the migrated indexes filter on exactly the sets' statuses", () => {
    const db = openSqliteDatabase(join(dir, 'store.db'));
    try {
      for (const [index, set] of Object.entries(STATUS_SET_INDEXES)) {
        const { sql } = db.prepare<[string], { sql: string }>("SELECT sql FROM sqlite_master WHERE name = ?").get(index)!;
        expect(sql.replace(/\s+/g, ' ')).toContain(statusInSql(set));
      }
    } finally {
      db.close();
    }
  });

  it('refuses to open, saying what to do, when an index no longer says what its set says', () => {
    const file = join(dir, 'store.db');
    const db = openSqliteDatabase(file);
    db.exec("DROP INDEX orders_late; CREATE INDEX orders_late ON orders (late_at, mode, status, created_at, id) WHERE status IN ('new', 'assigned')");
    db.close();
    expect(() => openSqliteDatabase(file)).toThrow(/orders_late does not filter on the domain's 'active' statuses.*Add a migration/);
  });
});
