import type { CodClaim, CodHandOver, CodPayout, CodReport, CourierCash } from '../../src/domain/cod.js';

export function presentCodReport(r: CodReport) {
  return {
    from: r.from,
    to: r.to,
    currency: 'CLP' as const,
    collected: r.collected,
    pending_confirmation: r.pendingConfirmation,
    handed_over: r.handedOver,
    settled: r.settled,
    outstanding: r.outstanding,
    payable: r.payable,
    mismatches: r.mismatches,
    lines: r.lines.map((l) => ({
      id: l.entryId, booking_id: l.orderId, courier_id: l.courierId, expected: l.expected, collected: l.collected, mismatch: l.mismatch,
      status: l.status, handed_over: l.handedOver, collected_at: l.collectedAt,
    })),
    next_cursor: r.nextCursor,
    has_more: r.nextCursor !== null,
  };
}

export function presentCourierCash(c: CourierCash) {
  return { currency: 'CLP' as const, collected: c.collected, pending_confirmation: c.pendingConfirmation, settled: c.settled, balance: c.balance };
}

export function presentCodClaim(c: CodClaim) {
  return {
    id: c.id, booking_id: c.orderId, merchant_id: c.merchantId, courier_id: c.courierId, expected: c.expected, collected: c.collected, status: c.status, collected_at: c.collectedAt,
  };
}

export function presentCodHandOver(h: CodHandOver) {
  return {
    courier_id: h.courierId, amount: h.amount, currency: 'CLP' as const, at: h.at,
    lines: h.lines.map((l) => ({ id: l.id, booking_id: l.orderId, merchant_id: l.merchantId, amount: l.amount })),
  };
}

export function presentCodPayout(p: CodPayout) {
  return { id: p.id, merchant_id: p.merchantId, amount: p.amount, currency: 'CLP' as const, at: p.at };
}
