/**
 * Which stop an upload counts against, and which uploads an order refers to (issue #39): the pure
 * rules under the upload quota and the unused-upload sweep.
 */
import { describe, expect, it } from 'vitest';
import { proofIdsOf, uploadStopOf } from '../../src/domain/proofs/service.js';
import type { Order, OrderStatus, OrderStop } from '../../src/domain/types.js';

const order = (fields: Partial<Order>): Order => ({ id: 'bk_1', status: 'picked_up', proof: null, ...fields }) as Order;
const stop = (id: string, status: OrderStop['status'], fields: Partial<OrderStop> = {}): OrderStop => ({ id, status, proof: null, failure: null, ...fields }) as OrderStop;
const proof = (photo: string | null, signature: string | null) => ({ photoProofId: photo, signatureProofId: signature }) as Order['proof'];

describe('uploadStopOf', () => {
  it('a single drop-off order is one stop on the way out, and the pickup is its own on the way back', () => {
    for (const status of ['assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff'] as OrderStatus[]) expect(uploadStopOf(order({ status }))).toBe('dropoff');
    for (const status of ['delivery_failed', 'returning'] as OrderStatus[]) expect(uploadStopOf(order({ status }))).toBe('pickup');
  });
  it('a multi-stop order counts against its current stop: the first not delivered or failed', () => {
    const stops = [stop('stp_a', 'delivered'), stop('stp_b', 'failed'), stop('stp_c', 'arrived'), stop('stp_d', 'pending')];
    expect(uploadStopOf(order({ stops }))).toBe('stp_c');
    expect(uploadStopOf(order({ stops: [stop('stp_a', 'pending'), stop('stp_b', 'pending')] }))).toBe('stp_a');
  });
});

describe('proofIdsOf', () => {
  it('collects the delivery\'s, the return\'s, the failed attempts\' and every stop\'s proofs, and nothing else', () => {
    const ids = proofIdsOf(order({
      proof: proof('pf_photo', 'pf_sig'),
      returnLeg: { fee: 0, startedAt: '', proof: proof('pf_back_photo', 'pf_back_sig') },
      failedAttempts: [{ photoProofId: 'pf_attempt' }, { photoProofId: null }] as Order['failedAttempts'],
      stops: [stop('stp_a', 'delivered', { proof: proof('pf_stop_photo', null) }), stop('stp_b', 'failed', { failure: { photoProofId: 'pf_stop_failed' } as OrderStop['failure'] })],
    }));
    expect([...ids].sort()).toEqual(['pf_attempt', 'pf_back_photo', 'pf_back_sig', 'pf_photo', 'pf_sig', 'pf_stop_failed', 'pf_stop_photo']);
    expect(proofIdsOf(order({})).size).toBe(0);
  });
});
