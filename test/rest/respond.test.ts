import { describe, expect, it } from 'vitest';
import { successJson } from '../../rest/respond.js';

describe('successJson (the body of every REST success answer)', () => {
  const reference = (body: Record<string, unknown>) => JSON.stringify({ success: true, ...body });

  it('is exactly JSON.stringify({ success: true, ...body }), success first', () => {
    const bodies: Array<Record<string, unknown>> = [
      {},
      { booking_id: 'bk_1', status: 'new', price: 3990, courier: null, pickup: { lat: -33.4, lng: -70.6, address: 'Av. "Providencia" 1234\n' } },
      { orders: [], next_cursor: null, skipped: undefined },
      Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`field_${i}`, i % 2 ? `v${i}` : { n: i }])),
    ];
    for (const body of bodies) {
      expect(successJson(body)).toBe(reference(body));
      expect(JSON.parse(successJson(body))).toEqual(JSON.parse(reference(body)));
    }
  });

  it('a body that carries its own success keeps the spread semantics (its value, in first place)', () => {
    expect(successJson({ success: false, reason: 'x' })).toBe('{"success":false,"reason":"x"}');
  });
});
