import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite/store.js';
import { describeCourierAppStoreContract } from './courier-app-store.contract.js';
import { ulid } from './fixtures.js';

// A real SQLite file on disk per case (its proofs beside it, under proofs/).
const dir = mkdtempSync(join(tmpdir(), 'exd-courier-app-store-contract-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeCourierAppStoreContract('sqlite (file on disk)', async () => createSqliteStore({ file: join(dir, `store-${++n}.sqlite`) }));

it('the embedded proof store is owner-only and content-addressed: directories 0700, files 0600, one blob per content', async () => {
  const sub = join(dir, 'modes');
  const store = createSqliteStore({ file: join(sub, 'store.sqlite') });
  try {
    const data = Buffer.from('same bytes');
    const sha256 = (await import('node:crypto')).createHash('sha256').update(data).digest('hex');
    for (let i = 0; i < 2; i++) {
      await store.proofs.put({ record: { id: `pf_${ulid()}`, orderId: 'bk_1', courierId: 'cr_1', kind: 'photo', contentType: 'image/png', bytes: data.length, sha256, createdAt: new Date().toISOString() }, data });
    }
    const proofs = join(sub, 'store.sqlite-proofs');
    for (const d of [proofs, join(proofs, 'blobs'), join(proofs, 'records'), join(proofs, 'refs')]) expect(statSync(d).mode & 0o777).toBe(0o700);
    const blob = statSync(join(proofs, 'blobs', sha256));
    expect(blob.mode & 0o777).toBe(0o600);
    // The blob's own name and one link per proof.
    expect(blob.nlink).toBe(3);
  } finally {
    await store.close();
  }
});
