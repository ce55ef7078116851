/**
 * `npm ci` on the README's Node floor prints no EBADENGINE warning: every package in the lockfile
 * (what `npm ci` installs, overrides applied) accepts the lowest Node that package.json's `engines`
 * allows. A dependency update that needs a newer Node fails here, not on a user's first install.
 */
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const read = (file: string) => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')) as Record<string, unknown>;

describe('engines', () => {
  it('every locked package accepts the lowest Node that package.json allows', () => {
    const floor = semver.minVersion((read('package.json').engines as { node: string }).node)!.version;
    expect(floor).toBe('20.19.0');
    const packages = read('package-lock.json').packages as Record<string, { version?: string; engines?: { node?: string } | string[] }>;
    const refusing = Object.entries(packages)
      .filter(([path, p]) => path !== '' && p.engines && !Array.isArray(p.engines) && p.engines.node)
      .filter(([, p]) => !semver.satisfies(floor, (p.engines as { node: string }).node, { includePrerelease: true }))
      .map(([path, p]) => `${path}@${p.version}: node ${(p.engines as { node: string }).node}`);
    expect(refusing).toEqual([]);
  });
});
