import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, writePrivateFile } from './private-files.js';

/**
 * The address the running server serves its links under, recorded in DATA_DIR at each start
 * (issue #38 item 1): the admin CLI, a separate process that may not know the port the server
 * bound (PORT=0, another PORT), builds its links on it when PUBLIC_BASE_URL is not set.
 */
export const PUBLIC_ADDRESS_FILE = 'public-address.json';

export function recordPublicAddress(options: { dataDir: string; url: string; at: string }): void {
  ensurePrivateDir(options.dataDir);
  writePrivateFile(join(options.dataDir, PUBLIC_ADDRESS_FILE), `${JSON.stringify({ public_base_url: options.url, recorded_at: options.at })}\n`);
}

/** The recorded address, or null when none was recorded (or the file is unreadable). */
export function readPublicAddress(dataDir: string): string | null {
  try {
    const parsed = JSON.parse(readFileSync(join(dataDir, PUBLIC_ADDRESS_FILE), 'utf8')) as { public_base_url?: unknown };
    return typeof parsed.public_base_url === 'string' && /^https?:\/\/[^/]/.test(parsed.public_base_url) ? parsed.public_base_url.replace(/\/+$/, '') : null;
  } catch {
    return null;
  }
}
