import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { writeVocabularyFile } from './vocabulary.js';

/**
 * Where the bundles go: dist/web/ for the compiled server (`npm run build`), web/build/ for the
 * sources under tsx (dev, tests), so a test running `npm run build` (which empties dist/) never
 * pulls the bundles from under a server started from the sources.
 */
export const WEB_OUT = {
  compiled: fileURLToPath(new URL('../../dist/web/', import.meta.url)),
  sources: fileURLToPath(new URL('../build/', import.meta.url)),
};

/** The room's apps: each is web/<app>/main.tsx, served by the API process at /<app>. */
export const WEB_APPS = ['console', 'courier', 'ops'] as const;
export type WebApp = (typeof WEB_APPS)[number];

/**
 * What the server's app shell links for one app: its content-hashed script and stylesheet; and the
 * files it serves at /<app>/<name> (not hashed, revalidated): web/<app>/public/* copied as they are,
 * and sw.js when the app has a service worker (web/<app>/sw.ts), built with the list of the app's
 * shell files to keep offline (SHELL_FILES) and a version that changes with them (SHELL_VERSION).
 */
export interface AppManifest { script: string; style: string; public: string[] }
export type WebManifest = Record<WebApp, AppManifest>;

/**
 * Bundles every app of the room (Preact, its own CSS, Leaflet where used) into `out`/assets:
 * <app>-<hash>.js|css (+ images), and manifest.json naming each app's files.
 */
export async function buildWeb(options: { out: string; minify?: boolean }): Promise<WebManifest> {
  const out = options.out;
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const result = await build({
    entryPoints: Object.fromEntries(WEB_APPS.map((app) => [app, fileURLToPath(new URL(`../${app}/main.tsx`, import.meta.url))])),
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
  const manifest = {} as WebManifest;
  for (const app of WEB_APPS) {
    const script = outputs.find((name) => new RegExp(`^${app}-\\w+\\.js$`).test(name));
    const style = outputs.find((name) => new RegExp(`^${app}-\\w+\\.css$`).test(name));
    if (!script || !style) throw new Error(`web build: no ${app} script or stylesheet in ${outputs.join(', ')}`);
    manifest[app] = { script, style, public: await buildPublic({ app, out, shell: [script, style], minify: options.minify ?? true }) };
  }
  writeFileSync(`${out}manifest.json`, JSON.stringify(manifest));
  return manifest;
}

/** web/<app>/public/* and the app's service worker into `out`/<app>/; their names. */
async function buildPublic(options: { app: WebApp; out: string; shell: string[]; minify: boolean }): Promise<string[]> {
  const source = fileURLToPath(new URL(`../${options.app}/`, import.meta.url));
  const target = `${options.out}${options.app}/`;
  const names: string[] = [];
  if (existsSync(`${source}public`)) {
    cpSync(`${source}public`, target, { recursive: true });
    names.push(...readdirSync(`${source}public`));
  }
  if (existsSync(`${source}sw.ts`)) {
    const files = [...options.shell.map((name) => `/${options.app}/assets/${name}`), ...names.map((name) => `/${options.app}/${name}`)];
    const version = createHash('sha256').update(files.join('\n')).digest('hex').slice(0, 12);
    await build({
      entryPoints: [`${source}sw.ts`],
      outfile: `${target}sw.js`,
      bundle: true,
      format: 'iife',
      target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
      minify: options.minify,
      define: { SHELL_FILES: JSON.stringify(files), SHELL_VERSION: JSON.stringify(version) },
      logLevel: 'warning',
    });
    names.push('sw.js');
  }
  return names;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = Date.now();
  // The apps' copy of the domain's vocabulary first (rewritten only when the domain changed it).
  if (writeVocabularyFile()) console.log('web: wrote shared/vocabulary.generated.ts');
  const out = process.argv.includes('--compiled') ? WEB_OUT.compiled : WEB_OUT.sources;
  const manifest = await buildWeb({ out });
  const files = Object.entries(manifest).map(([app, { script, style }]) => `${app}: ${script}, ${style}`);
  console.log(`web: ${files.join('; ')} in ${relative(process.cwd(), out)}/assets (${Date.now() - started} ms)`);
}
