import type { CodReport, CourierCash } from '../../src/domain/cod.js';

export function presentCodReport(r: CodReport) {
  return {
    from: r.from,
    to: r.to,
    currency: 'CLP' as const,
    collected: r.collected,
    settled: r.settled,
    outstanding: r.outstanding,
    mismatches: r.mismatches,
    lines: r.lines.map((l) => ({
      id: l.entryId, booking_id: l.orderId, courier_id: l.courierId, expected: l.expected, collected: l.collected, mismatch: l.mismatch, collected_at: l.collectedAt,
    })),
    next_cursor: r.nextCursor,
    has_more: r.nextCursor !== null,
  };
}

export function presentCourierCash(c: CourierCash) {
  return { currency: 'CLP' as const, collected: c.collected, settled: c.settled, balance: c.balance };
}
