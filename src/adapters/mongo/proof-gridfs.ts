import { GridFSBucket, type Db } from 'mongodb';
import type { ProofRecord, ProofStore } from '../../ports/proof-store.js';

const BUCKET = 'proofs';

interface ProofFile {
  _id: unknown;
  filename: string;
  metadata?: ProofRecord;
}

async function collect(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
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
    ]).catch((error: unknown) => {
      indexed = null;
      throw error;
    }));

  async function fileOf(id: string): Promise<ProofFile | null> {
    if (typeof id !== 'string' || id.length > 64) return null;
    return files.findOne({ filename: id });
  }

  return {
    async put({ record, data }) {
      await ensureIndexes();
      await new Promise<void>((resolve, reject) => {
        const upload = bucket.openUploadStream(record.id, { metadata: record });
        upload.once('error', reject);
        upload.once('finish', () => resolve());
        upload.end(data);
      });
    },
    async find(id) {
      return (await fileOf(id))?.metadata ?? null;
    },
    async read(id) {
      const file = await fileOf(id);
      if (!file?.metadata) return null;
      return { record: file.metadata, data: await collect(bucket.openDownloadStream(file._id as never)) };
    },
    async prune({ createdBefore, limit }) {
      if (limit <= 0) return 0;
      const old = await files.find({ 'metadata.createdAt': { $lt: createdBefore } }, { projection: { _id: 1 } }).sort({ 'metadata.createdAt': 1 }).limit(limit).toArray();
      let removed = 0;
      for (const file of old) {
        try {
          await bucket.delete(file._id as never);
          removed++;
        } catch (error) {
          // Removed meanwhile by another node's run.
          if (!/not found/i.test((error as Error).message)) throw error;
        }
      }
      return removed;
    },
  };
}
