import { describe, expect, it } from 'vitest';
import { dateTime, time } from '../../web/shared/format.js';

/** Issue #38 item 11: one date and time format in every app, 24-hour Santiago time, the day only when it is not today. */
describe('the apps’ one date and time format', () => {
  const now = new Date('2026-12-07T20:00:00Z'); // 17:00 in Santiago (summer, UTC−3)

  it('today: the 24-hour time alone, on Santiago’s clock whatever the process zone', () => {
    expect(dateTime('2026-12-07T18:04:00Z', 'es', now)).toBe('15:04');
    expect(dateTime('2026-12-07T18:04:00Z', 'en', now)).toBe('15:04');
    expect(dateTime('2026-12-07T03:30:00Z', 'es', now)).toBe('00:30');
    expect(time('2026-12-07T23:59:00Z', 'es', now)).toBe('20:59');
  });

  it('another day: the day and month before the time (the year only when it is another year), never a.m./p.m.', () => {
    // 01:04 UTC on the 8th is still the 7th in Santiago; 04:00 UTC on the 8th is the 8th.
    expect(dateTime('2026-12-08T01:04:00Z', 'es', now)).toBe('22:04');
    expect(dateTime('2026-12-08T04:00:00Z', 'es', now)).toBe('8 dic, 01:00');
    expect(dateTime('2026-12-05T18:04:00Z', 'es', now)).toBe('5 dic, 15:04');
    expect(dateTime('2026-12-05T18:04:00Z', 'en', now)).toBe('5 Dec, 15:04');
    expect(dateTime('2025-07-01T18:04:00Z', 'es', now)).toBe('1 jul 2025, 14:04');
    for (const lang of ['es', 'en'] as const) expect(dateTime('2026-12-05T18:04:00Z', lang, now)).not.toMatch(/[ap]\.?\s?m\.?/i);
  });
});
