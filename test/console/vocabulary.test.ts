import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VOCABULARY_FILE, vocabularyFile } from '../../web/scripts/vocabulary.js';

describe("the web apps' vocabulary", () => {
  it('is the generated copy of src/domain/vocabulary.ts', () => {
    const committed = readFileSync(VOCABULARY_FILE, 'utf8');
    // A boolean (not a string diff) keeps a stale file's failure to one readable line.
    expect(committed === vocabularyFile(), 'web/shared/vocabulary.generated.ts is stale: run `npm run web:build`').toBe(true);
  });
});

describe('the web apps hold no hand-written list of the vocabulary', () => {
  it('no file under web/ but the generated one lists three statuses, events or error codes in a row (a copy of a list or a set)', async () => {
    const { readdirSync } = await import('node:fs');
    const { WEB_VOCABULARY } = await import('../../src/domain/vocabulary.js');
    const words = new Set<string>([
      ...WEB_VOCABULARY.ORDER_STATUSES, ...WEB_VOCABULARY.WEBHOOK_EVENT_TYPES, ...WEB_VOCABULARY.WEBHOOK_EVENTS, ...WEB_VOCABULARY.ERROR_CODES,
    ]);
    const root = new URL('../../web/', import.meta.url);
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((path) => /\.(ts|tsx)$/.test(path) && !/^(build|scripts)\//.test(path) && !path.endsWith('.generated.ts') && !path.endsWith('.d.ts'));
    const lists = files.flatMap((path) => {
      const text = readFileSync(new URL(path, root), 'utf8');
      return [...text.matchAll(/'([\w.]+)',\s*'([\w.]+)',\s*'([\w.]+)'/g)].filter(([, ...three]) => three.every((w) => words.has(w!))).map((m) => `${path}: ${m[0]}`);
    });
    expect(lists).toEqual([]);
  });
});
