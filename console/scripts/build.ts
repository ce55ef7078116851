import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * Where the bundle goes: dist/console/ for the compiled server (`npm run build`), console/build/ for
 * the sources under tsx (dev, tests), so a test running `npm run build` (which empties dist/) never
 * pulls the bundle from under a server started from the sources.
 */
export const CONSOLE_OUT = {
  compiled: fileURLToPath(new URL('../../dist/console/', import.meta.url)),
  sources: fileURLToPath(new URL('../build/', import.meta.url)),
};
const ENTRY = fileURLToPath(new URL('../src/main.tsx', import.meta.url));

/** What the server's app shell links: the content-hashed script and stylesheet under assets/. */
export interface ConsoleManifest { script: string; style: string }

/**
 * Bundles the console (Preact, Leaflet, graphql-ws client and its own CSS) into `out`:
 * assets/main-<hash>.js|css (+ Leaflet's images) and manifest.json naming them.
 */
export async function buildConsole(options: { out: string; minify?: boolean }): Promise<ConsoleManifest> {
  const out = options.out;
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const result = await build({
    entryPoints: [ENTRY],
    outdir: `${out}assets`,
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
  const outputs = Object.keys(result.metafile.outputs).map((path) => basename(relative(out, path)));
  const script = outputs.find((name) => /^main-\w+\.js$/.test(name));
  const style = outputs.find((name) => /^main-\w+\.css$/.test(name));
  if (!script || !style) throw new Error(`console build: no main script or stylesheet in ${outputs.join(', ')}`);
  const manifest = { script, style };
  writeFileSync(`${out}manifest.json`, JSON.stringify(manifest));
  return manifest;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = Date.now();
  const out = process.argv.includes('--compiled') ? CONSOLE_OUT.compiled : CONSOLE_OUT.sources;
  const manifest = await buildConsole({ out });
  console.log(`console: ${manifest.script}, ${manifest.style} in ${relative(process.cwd(), out)}/assets (${Date.now() - started} ms)`);
}
