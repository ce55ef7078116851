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

describe('order and tracking numbers', () => {
  it('are random, in their documented formats', () => {
    const ids = createUlidSource();
    const orderNumbers = Array.from({ length: 2000 }, () => ids.orderNumber());
    for (const n of orderNumbers) expect(n).toMatch(/^[1-9]\d{9}$/);
    expect(new Set(orderNumbers).size).toBe(orderNumbers.length);
    // Not sequential: consecutive draws are far apart.
    expect(orderNumbers.slice(1).filter((n, i) => Math.abs(Number(n) - Number(orderNumbers[i])) < 1000)).toHaveLength(0);
    const tracking = Array.from({ length: 2000 }, () => ids.trackingNumber());
    for (const n of tracking) expect(n).toMatch(/^EXD-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(new Set(tracking).size).toBe(tracking.length);
  });
});
