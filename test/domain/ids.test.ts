import { describe, expect, it } from 'vitest';
import { createUlidSource } from '../../src/ports/ids.js';

describe('ULID id source', () => {
  it('gives prefixed, unique, time-ordered ULIDs (Crockford base32, 26 characters)', () => {
    const ids = createUlidSource();
    const made = Array.from({ length: 10_000 }, () => ids.next('bk'));
    for (const id of made.slice(0, 50)) expect(id).toMatch(/^bk_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(new Set(made).size).toBe(made.length);
    expect([...made].sort()).toEqual(made);
  });

  it('draws the random part from crypto randomness: two sources never start alike', () => {
    const randomPart = (id: string) => id.slice(3 + 10);
    const a = createUlidSource().next('x');
    const b = createUlidSource().next('x');
    expect(randomPart(a)).not.toBe(randomPart(b));
    // 16 characters × 5 bits: every character value shows up across many ids.
    const chars = new Set(Array.from({ length: 500 }, () => randomPart(createUlidSource().next('x'))).join(''));
    expect(chars.size).toBe(32);
  });
});
