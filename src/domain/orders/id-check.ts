import { z } from 'zod';
import { AppError } from '../errors.js';
import { normalizeRut } from '../rut.js';
import type { IdCheckProof, Order } from '../types.js';

/** Without a `min_age`, the check proves majority (18, Chile's age of majority). */
export const DEFAULT_ID_CHECK_MIN_AGE = 18;
const ID_CHECK_TIME_ZONE = 'America/Santiago';

/** The order's flag as the merchant gives it: `{ required: true, minAge? }`. */
export const idCheckRequirementSchema = z.strictObject({
  required: z.literal(true),
  minAge: z.number().int().min(18).max(99).optional(),
});

/**
 * What the courier reads off the recipient's ID card. The RUT is only a string here: a wrong check
 * digit is the domain's ID_DOCUMENT_INVALID (422), not a malformed request.
 */
export const idCheckInputSchema = z.strictObject({
  documentNumber: z.string().trim().min(1).max(20),
  dateOfBirth: z.iso.date(),
});
export type IdCheckInput = z.output<typeof idCheckInputSchema>;

/** The calendar date (YYYY-MM-DD) of an instant in Santiago. */
function santiagoDate(at: Date): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: ID_CHECK_TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

/**
 * Completed years between the birth date and the Santiago date of `at`: the birthday counts from
 * its own Santiago midnight. A 29 February birthday is reached on 1 March in common years.
 */
export function ageOn(options: { dateOfBirth: string; at: Date }): number {
  const today = santiagoDate(options.at);
  const years = Number(today.slice(0, 4)) - Number(options.dateOfBirth.slice(0, 4));
  return today.slice(5) < options.dateOfBirth.slice(5) ? years - 1 : years;
}

/**
 * The ID check an order needs before its delivery: none (null) when the order has no flag; else the
 * RUT's check digit and the recipient's age on the delivery date. Only the RUT's last 4 characters
 * (without the hyphen) are kept.
 */
export function verifyIdCheck(options: { order: Order; input: IdCheckInput | undefined; courierId: string; at: Date }): IdCheckProof | null {
  const required = options.order.idCheck;
  if (!required) return null;
  const { input } = options;
  if (!input) {
    throw new AppError('ID_CHECK_REQUIRED', `This order needs the recipient's ID checked (age ${required.minAge}+): send idCheck with documentNumber and dateOfBirth`, {
      fields: [{ field: 'idCheck', message: 'is required for this order' }],
    });
  }
  const rut = normalizeRut(input.documentNumber);
  if (!rut) {
    throw new AppError('ID_DOCUMENT_INVALID', 'The document number is not a valid RUT (format or check digit)', {
      fields: [{ field: 'idCheck.documentNumber', message: 'not a valid RUT (format or check digit)' }],
    });
  }
  const age = ageOn({ dateOfBirth: input.dateOfBirth, at: options.at });
  if (age < required.minAge) {
    throw new AppError('ID_CHECK_FAILED', `The recipient is under ${required.minAge} on the delivery date: the order cannot be handed over`, {
      details: { min_age: required.minAge },
    });
  }
  return { verified: true, minAge: required.minAge, documentLast4: rut.replace('-', '').slice(-4), checkedAt: options.at.toISOString(), courierId: options.courierId };
}
