import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, makePrivate, PRIVATE_FILE_MODE } from './private-files.js';

/** The embedded mode's key file in DATA_DIR (a backup carries it beside the database). */
export const MASTER_KEY_FILE_NAME = 'master.key';

/**
 * The key that encrypts API secrets at rest. Distributed mode must be given MASTER_KEY; the
 * embedded default keeps one in DATA_DIR/master.key (created once, owner-only).
 */
export function resolveMasterKey(options: { configured: Buffer | undefined; dataDir: string; distributed: boolean }): Buffer {
  if (options.configured) return options.configured;
  if (options.distributed) {
    throw new Error('MASTER_KEY is required when MONGODB_URL is set (32 random bytes, base64): every node must share it');
  }
  const file = join(options.dataDir, MASTER_KEY_FILE_NAME);
  try {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
    makePrivate(file);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  ensurePrivateDir(options.dataDir);
  const key = randomBytes(32);
  // Written aside, then linked into place: readers never see a half-written file.
  const draft = `${file}.${process.pid}.tmp`;
  writeFileSync(draft, key.toString('base64'), { mode: PRIVATE_FILE_MODE });
  try {
    linkSync(draft, file);
    return key;
  } catch (error) {
    // Another process (server or admin CLI) created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return resolveMasterKey(options);
    throw error;
  } finally {
    unlinkSync(draft);
  }
}
