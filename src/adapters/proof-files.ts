import { createHash } from 'node:crypto';
import { linkSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { readdir, stat, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeTime } from 'ulid';
import type { ProofRecord, ProofStore } from '../ports/proof-store.js';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from './private-files.js';

/** How long the running total of the blobs' bytes is trusted before it is counted again from the disk (another process may write too). */
const RECOUNT_MS = 10 * 60_000;

const ID_PATTERN = /^pf_[0-9A-Z]{26}$/;
const SHA_PATTERN = /^[0-9a-f]{64}$/;

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * The embedded proof store: under `dir` (DATA_DIR/proofs), owner-only (0700 directories, 0600
 * files). Bytes are content-addressed (`blobs/<sha256>`: one file however many proofs share it);
 * each proof is a record `records/<id>.json` and a hard link `refs/<id>` to its blob, so a blob's
 * link count says how many proofs still use it and retention removes it with its last proof.
 * Writes go to a temporary name first, then rename: a crash leaves no half file under a real name.
 * An empty `pending/<id>` marks a proof the unused-upload sweep has not settled yet (issue #39): it
 * is written before anything else, so a crash mid-put leaves a marker the sweep cleans up.
 */
export function createFileProofStore(options: { dir: string }): ProofStore {
  const { dir } = options;
  const blobs = join(dir, 'blobs');
  const records = join(dir, 'records');
  const refs = join(dir, 'refs');
  const pending = join(dir, 'pending');
  for (const d of [dir, blobs, records, refs, pending]) ensurePrivateDir(d);
  /** The blobs' bytes, counted from the disk at `countedAt` and kept up to date by this process's puts and removals since. */
  let usedBytes = 0;
  let countedAt = -Infinity;

  async function countBlobs(): Promise<number> {
    let total = 0;
    for (const name of await readdir(blobs)) {
      try {
        total += (await stat(join(blobs, name))).size;
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
    return total;
  }

  const unlinkIfThere = (file: string): boolean => {
    try {
      unlinkSync(file);
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  };
  let temp = 0;
  const tempName = (base: string) => join(base, `.tmp-${process.pid}-${++temp}`);

  function writeAtomically(file: string, data: Buffer | string): void {
    const tmp = tempName(dir);
    writeFileSync(tmp, data, { mode: PRIVATE_FILE_MODE });
    renameSync(tmp, file);
  }

  function readRecord(id: string): ProofRecord | null {
    if (!ID_PATTERN.test(id)) return null;
    try {
      return JSON.parse(readFileSync(join(records, `${id}.json`), 'utf8')) as ProofRecord;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  function remove(id: string): boolean {
    const record = readRecord(id);
    const ref = join(refs, id);
    unlinkIfThere(ref);
    if (record && SHA_PATTERN.test(record.sha256)) {
      const blob = join(blobs, record.sha256);
      try {
        // Only the blob's own name is left: no proof uses these bytes any more.
        const { nlink, size } = statSync(blob);
        if (nlink <= 1 && unlinkIfThere(blob)) usedBytes -= size;
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
    const removed = unlinkIfThere(join(records, `${id}.json`));
    unlinkIfThere(join(pending, id));
    return removed;
  }

  return {
    async put({ record, data }) {
      if (!ID_PATTERN.test(record.id)) throw new Error(`not a proof id: ${record.id}`);
      const sha256 = createHash('sha256').update(data).digest('hex');
      if (sha256 !== record.sha256 || data.length !== record.bytes) throw new Error('the record does not describe these bytes');
      const blob = join(blobs, sha256);
      writeFileSync(join(pending, record.id), '', { mode: PRIVATE_FILE_MODE });
      // The blob may vanish between the check and the link (its last proof pruned): then write it again.
      for (let attempt = 0; ; attempt++) {
        try {
          statSync(blob);
        } catch (error) {
          if (!isMissing(error)) throw error;
          writeAtomically(blob, data);
          usedBytes += data.length;
        }
        try {
          linkSync(blob, join(refs, record.id));
          break;
        } catch (error) {
          if (!isMissing(error) || attempt >= 2) throw error;
        }
      }
      writeAtomically(join(records, `${record.id}.json`), JSON.stringify(record));
    },
    async find(id) {
      return readRecord(id);
    },
    async read(id) {
      const record = readRecord(id);
      if (!record) return null;
      try {
        return { record, data: readFileSync(join(refs, id)) };
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    async prune({ createdBefore, limit }) {
      if (limit <= 0) return 0;
      // Ids are ULIDs: names in order are proofs in creation order, so the oldest come first.
      const names = readdirSync(records).filter((n) => n.endsWith('.json')).sort();
      let removed = 0;
      for (const name of names) {
        if (removed >= limit) break;
        const record = readRecord(name.slice(0, -5));
        if (!record) continue;
        if (record.createdAt >= createdBefore) break;
        if (remove(record.id)) removed++;
      }
      return removed;
    },
    async unsettled({ createdBefore, limit }) {
      const found: ProofRecord[] = [];
      if (limit <= 0) return found;
      // Ids are ULIDs: in name order, oldest first.
      for (const id of (await readdir(pending)).sort()) {
        if (found.length >= limit || !ID_PATTERN.test(id)) break;
        const record = readRecord(id);
        if (record) {
          if (record.createdAt >= createdBefore) break;
          found.push(record);
        } else if (new Date(decodeTime(id.slice(3))).toISOString() < createdBefore) {
          // A put that never finished (a crash): its marker and whatever it wrote go.
          remove(id);
        }
      }
      return found;
    },
    async settle(id) {
      if (ID_PATTERN.test(id)) unlinkIfThere(join(pending, id));
    },
    async remove(id) {
      return ID_PATTERN.test(id) ? remove(id) : false;
    },
    async space() {
      if (performance.now() - countedAt > RECOUNT_MS) {
        countedAt = performance.now();
        usedBytes = await countBlobs();
      }
      const fs = await statfs(dir);
      return { usedBytes, freeBytes: fs.bavail * fs.bsize };
    },
  };
}
