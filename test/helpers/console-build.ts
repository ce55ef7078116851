import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildConsole, CONSOLE_OUT } from '../../console/scripts/build.js';

const SOURCES = fileURLToPath(new URL('../../console/src/', import.meta.url));

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Vitest global setup: the console bundle the sources serve (console/build/), built once per run
 * when a console source is newer than it (about half a second; the browser tests need it).
 */
export default async function setup(): Promise<void> {
  const manifest = join(CONSOLE_OUT.sources, 'manifest.json');
  if (existsSync(manifest) && statSync(manifest).mtimeMs > newestSource(SOURCES)) return;
  await buildConsole({ out: CONSOLE_OUT.sources });
}
