import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { ageOn, verifyIdCheck } from '../../src/domain/orders/id-check.js';
import type { Order } from '../../src/domain/types.js';

const samples = JSON.parse(readFileSync(new URL('../fixtures/rut-samples.json', import.meta.url), 'utf8')) as {
  valid: Array<{ rut: string }>;
  invalid: Array<{ rut: string }>;
};

/** Only the flag is read. */
const flagged = (minAge: number) => ({ idCheck: { minAge } }) as Order;
const check = (options: { minAge?: number; documentNumber?: string; dateOfBirth?: string; at: string }) =>
  verifyIdCheck({
    order: flagged(options.minAge ?? 18),
    input: { documentNumber: options.documentNumber ?? '12.345.678-5', dateOfBirth: options.dateOfBirth ?? '1990-05-04' },
    courierId: 'cr_1',
    at: new Date(options.at),
  });
const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof AppError ? `${error.status} ${error.code}` : String(error);
  }
  return 'passed';
};

describe('ID check at the door', () => {
  it('an order without the flag needs nothing; with it, no check is 422 ID_CHECK_REQUIRED', () => {
    expect(verifyIdCheck({ order: { idCheck: null } as Order, input: undefined, courierId: 'cr_1', at: new Date() })).toBeNull();
    expect(codeOf(() => verifyIdCheck({ order: flagged(18), input: undefined, courierId: 'cr_1', at: new Date() }))).toBe('422 ID_CHECK_REQUIRED');
  });

  it('every valid sample RUT passes and keeps only its last 4 characters; every invalid one is 422 ID_DOCUMENT_INVALID', () => {
    for (const { rut } of samples.valid) {
      const proof = check({ documentNumber: rut, at: '2026-11-28T15:00:00Z' })!;
      const compact = rut.replace(/[.-]/g, '').toUpperCase();
      expect(proof, rut).toEqual({ verified: true, minAge: 18, documentLast4: compact.slice(-4), checkedAt: '2026-11-28T15:00:00.000Z', courierId: 'cr_1' });
      expect(JSON.stringify(proof)).not.toContain(compact.slice(0, -4));
    }
    for (const { rut } of samples.invalid) expect(codeOf(() => check({ documentNumber: rut, at: '2026-11-28T15:00:00Z' })), rut).toBe('422 ID_DOCUMENT_INVALID');
    expect(codeOf(() => check({ documentNumber: 'not a rut', at: '2026-11-28T15:00:00Z' }))).toBe('422 ID_DOCUMENT_INVALID');
  });

  it('the 18th birthday counts from midnight in Santiago (summer, UTC-3), not in UTC', () => {
    // 02:59:59 UTC on the 28th is still the 27th in Santiago: 17 years old.
    expect(codeOf(() => check({ dateOfBirth: '2008-11-28', at: '2026-11-28T02:59:59Z' }))).toBe('422 ID_CHECK_FAILED');
    expect(codeOf(() => check({ dateOfBirth: '2008-11-28', at: '2026-11-28T03:00:00Z' }))).toBe('passed');
    expect(ageOn({ dateOfBirth: '2008-11-28', at: new Date('2026-11-28T02:59:59Z') })).toBe(17);
  });

  it('winter (UTC-4) and a minimum age above 18', () => {
    expect(codeOf(() => check({ minAge: 21, dateOfBirth: '2005-07-01', at: '2026-07-01T03:59:59Z' }))).toBe('422 ID_CHECK_FAILED');
    expect(codeOf(() => check({ minAge: 21, dateOfBirth: '2005-07-01', at: '2026-07-01T04:00:00Z' }))).toBe('passed');
    expect(check({ minAge: 21, dateOfBirth: '2005-07-01', at: '2026-07-01T04:00:00Z' })!.minAge).toBe(21);
  });

  it('a 29 February birthday is reached on 1 March in a common year', () => {
    expect(ageOn({ dateOfBirth: '2008-02-29', at: new Date('2026-02-28T15:00:00Z') })).toBe(17);
    expect(ageOn({ dateOfBirth: '2008-02-29', at: new Date('2026-03-01T15:00:00Z') })).toBe(18);
  });
});
