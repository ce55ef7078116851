import { GridFSBucket, type Db } from 'mongodb';
import type { ProofRecord, ProofStore } from '../../ports/proof-store.js';

const BUCKET = 'proofs';

/** `metadata` is the record, with `pending: true` until the unused-upload sweep settles it (issue #39). */
interface ProofFile {
  _id: unknown;
  filename: string;
  length?: number;
  metadata?: ProofRecord & { pending?: boolean };
}

const recordOf = (file: ProofFile | null): ProofRecord | null => {
  if (!file?.metadata) return null;
  const { pending: _pending, ...record } = file.metadata;
  return record;
};

async function collect(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The free room of the disk under the database, when the server reports it (dbStats fsTotalSize/fsUsedSize); else null. */
async function freeBytesOf(db: Db): Promise<number | null> {
  try {
    const stats = await db.command({ dbStats: 1, scale: 1 });
    const total = Number(stats.fsTotalSize);
    const used = Number(stats.fsUsedSize);
    return Number.isFinite(total) && Number.isFinite(used) && total > 0 ? Math.max(0, total - used) : null;
  } catch {
    return null;
  }
}

/**
 * The distributed proof store: a GridFS bucket (`proofs.files` / `proofs.chunks`) through the
 * official driver's GridFSBucket; the file's name is the proof id, its metadata the record.
 */
export function createGridFsProofStore(options: { db: Db }): ProofStore {
  const bucket = new GridFSBucket(options.db, { bucketName: BUCKET });
  const files = options.db.collection<ProofFile>(`${BUCKET}.files`);
  let indexed: Promise<unknown> | null = null;
  const ensureIndexes = () =>
    (indexed ??= Promise.all([
      files.createIndex({ filename: 1 }, { unique: true, name: 'proofs_id' }),
      files.createIndex({ 'metadata.createdAt': 1 }, { name: 'proofs_created' }),
      files.createIndex({ 'metadata.pending': 1, 'metadata.createdAt': 1 }, { name: 'proofs_pending' }),
    ]).catch((error: unknown) => {
      indexed = null;
      throw error;
    }));

  async function fileOf(id: string): Promise<ProofFile | null> {
    if (typeof id !== 'string' || id.length > 64) return null;
    return files.findOne({ filename: id });
  }

  async function removeFile(file: Pick<ProofFile, '_id'>): Promise<boolean> {
    try {
      await bucket.delete(file._id as never);
      return true;
    } catch (error) {
      // Removed meanwhile by another node's run.
      if (!/not found/i.test((error as Error).message)) throw error;
      return false;
    }
  }

  return {
    async put({ record, data }) {
      await ensureIndexes();
      await new Promise<void>((resolve, reject) => {
        const upload = bucket.openUploadStream(record.id, { metadata: Object.assign({}, record, { pending: true }) });
        upload.once('error', reject);
        upload.once('finish', () => resolve());
        upload.end(data);
      });
    },
    async find(id) {
      return recordOf(await fileOf(id));
    },
    async read(id) {
      const file = await fileOf(id);
      const record = recordOf(file);
      if (!file || !record) return null;
      return { record, data: await collect(bucket.openDownloadStream(file._id as never)) };
    },
    async prune({ createdBefore, limit }) {
      if (limit <= 0) return 0;
      const old = await files.find({ 'metadata.createdAt': { $lt: createdBefore } }, { projection: { _id: 1 } }).sort({ 'metadata.createdAt': 1 }).limit(limit).toArray();
      let removed = 0;
      for (const file of old) if (await removeFile(file)) removed++;
      return removed;
    },
    async unsettled({ createdBefore, limit }) {
      if (limit <= 0) return [];
      const found = await files.find({ 'metadata.pending': true, 'metadata.createdAt': { $lt: createdBefore } }).sort({ 'metadata.createdAt': 1 }).limit(limit).toArray();
      return found.map(recordOf).filter((r): r is ProofRecord => r !== null);
    },
    async settle(id) {
      if (typeof id !== 'string' || id.length > 64) return;
      await files.updateOne({ filename: id }, { $unset: { 'metadata.pending': '' } });
    },
    async remove(id) {
      const file = await fileOf(id);
      return file ? removeFile(file) : false;
    },
    async space() {
      const [sum] = await files.aggregate<{ bytes: number }>([{ $group: { _id: null, bytes: { $sum: '$length' } } }]).toArray();
      return { usedBytes: sum?.bytes ?? 0, freeBytes: await freeBytesOf(options.db) };
    },
  };
}
