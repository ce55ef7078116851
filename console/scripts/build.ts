import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const CONSOLE_OUT = fileURLToPath(new URL('../../dist/console/', import.meta.url));
const ENTRY = fileURLToPath(new URL('../src/main.tsx', import.meta.url));

/** What the server's app shell links: the content-hashed script and stylesheet under assets/. */
export interface ConsoleManifest { script: string; style: string }

/**
 * Bundles the console (Preact, Leaflet, graphql-ws client and its own CSS) into dist/console/:
 * assets/main-<hash>.js|css (+ Leaflet's images) and manifest.json naming them.
 */
export async function buildConsole(options: { minify?: boolean } = {}): Promise<ConsoleManifest> {
  rmSync(CONSOLE_OUT, { recursive: true, force: true });
  mkdirSync(CONSOLE_OUT, { recursive: true });
  const result = await build({
    entryPoints: [ENTRY],
    outdir: `${CONSOLE_OUT}assets`,
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    bundle: true,
    format: 'esm',
    target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    loader: { '.png': 'file', '.svg': 'file' },
    minify: options.minify ?? true,
    sourcemap: 'linked',
    legalComments: 'linked',
    metafile: true,
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((path) => basename(relative(CONSOLE_OUT, path)));
  const script = outputs.find((name) => /^main-\w+\.js$/.test(name));
  const style = outputs.find((name) => /^main-\w+\.css$/.test(name));
  if (!script || !style) throw new Error(`console build: no main script or stylesheet in ${outputs.join(', ')}`);
  const manifest = { script, style };
  writeFileSync(`${CONSOLE_OUT}manifest.json`, JSON.stringify(manifest));
  return manifest;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = Date.now();
  const manifest = await buildConsole();
  console.log(`console: ${manifest.script}, ${manifest.style} in dist/console/assets (${Date.now() - started} ms)`);
}
