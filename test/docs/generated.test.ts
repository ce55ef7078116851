/** The generated parts of docs/ are up to date (`npm run docs` writes them), and every decision has a title and a status. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENV_VARIABLES } from '../../src/config.js';
import { CONFIGURATION_FILE, readDecisions, renderConfiguration } from '../../scripts/docs.js';

describe('docs/configuration.md', () => {
  const page = readFileSync(CONFIGURATION_FILE, 'utf8');

  it('is the table npm run docs writes from src/config.ts', () => {
    expect(renderConfiguration(page), 'run npm run docs').toBe(page);
  });

  it('describes every variable', () => {
    for (const name of ENV_VARIABLES) {
      const row = page.split('\n').find((line) => line.startsWith(`| \`${name}\` |`));
      expect(row, name).toBeDefined();
      expect(row!.split(' | ').at(-1)!.replace(/\s*\|$/, '').length, `${name} has no .describe() text`).toBeGreaterThan(10);
    }
  });
});

describe('docs/decisions/', () => {
  it('one file per decision, each with a title and a status', () => {
    const decisions = readDecisions();
    expect(decisions.length).toBeGreaterThan(70);
    for (const d of decisions) {
      expect(d.title, d.file).not.toBe(d.file);
      expect(d.status, `${d.file} has no "Status:" line`).toMatch(/^(accepted|superseded|proposed|rejected|deprecated)\b/i);
    }
  });
});
