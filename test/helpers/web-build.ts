import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWeb, WEB_OUT } from '../../web/scripts/build.js';

const SOURCES = fileURLToPath(new URL('../../web/', import.meta.url));

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'build') continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Vitest global setup: the web apps' bundles the sources serve (web/build/), built once per run
 * when a source of the room is newer than them (about a second; the browser tests need them).
 */
export default async function setup(): Promise<void> {
  const manifest = join(WEB_OUT.sources, 'manifest.json');
  if (existsSync(manifest) && statSync(manifest).mtimeMs > newestSource(SOURCES)) return;
  await buildWeb({ out: WEB_OUT.sources });
}
