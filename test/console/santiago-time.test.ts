import { describe, expect, it } from 'vitest';
import { fromSantiagoInput, toSantiagoInput } from '../../web/shared/ui/santiago-time.js';

describe("console: datetime-local values on Santiago's clock", () => {
  it('reads a wall time as Santiago’s, summer (UTC−3) and winter (UTC−4), whatever the process zone', () => {
    expect(fromSantiagoInput('2026-11-26T09:30')).toBe('2026-11-26T12:30:00.000Z');
    expect(fromSantiagoInput('2026-07-01T09:30')).toBe('2026-07-01T13:30:00.000Z');
    expect(toSantiagoInput(Date.parse('2026-11-26T12:30:00Z'))).toBe('2026-11-26T09:30');
    expect(toSantiagoInput(Date.parse('2026-07-01T13:30:00Z'))).toBe('2026-07-01T09:30');
  });

  it('across the September and April clock changes: every instant’s wall time reads back to that wall time (the repeated April hour to its first instant)', () => {
    for (const start of [Date.parse('2026-09-05T12:00:00Z'), Date.parse('2026-04-04T12:00:00Z')]) {
      for (let ms = start; ms < start + 36 * 3_600_000; ms += 1_800_000) {
        const wall = toSantiagoInput(ms);
        const read = Date.parse(fromSantiagoInput(wall));
        expect(toSantiagoInput(read)).toBe(wall);
        expect([0, 3_600_000]).toContain(ms - read);
      }
    }
    // 23:30 on 4 April 2026 happens twice (UTC−3, then UTC−4): the first is taken.
    expect(fromSantiagoInput('2026-04-04T23:30')).toBe('2026-04-05T02:30:00.000Z');
    expect(fromSantiagoInput('2026-04-05T00:30')).toBe('2026-04-05T04:30:00.000Z');
  });
});
