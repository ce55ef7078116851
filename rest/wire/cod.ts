/** The REST wire form of the operators' cash-on-delivery commands (issue #39), mapped onto the domain's in one step each (also the OpenAPI bodies). */
import { z } from 'zod';
import { listCodClaimsSchema, recordCodHandOverSchema, recordCodPayoutSchema } from '../../src/domain/cod.js';
import { parseInput } from '../../src/domain/validation.js';

export const codHandOverBody = z.strictObject({ courier_id: recordCodHandOverSchema.shape.courierId, amount: recordCodHandOverSchema.shape.amount });
export const codPayoutBody = z.strictObject({ merchant_id: recordCodPayoutSchema.shape.merchantId, amount: recordCodPayoutSchema.shape.amount });
export const codClaimsQueryString = z.strictObject({
  status: listCodClaimsSchema.shape.status,
  courier_id: listCodClaimsSchema.shape.courierId,
  after: listCodClaimsSchema.shape.after,
  first: listCodClaimsSchema.shape.first,
});

export function codHandOverCommand(body: unknown): { courierId: string; amount: number } {
  const b = parseInput(codHandOverBody, body);
  return { courierId: b.courier_id, amount: b.amount };
}

export function codPayoutCommand(body: unknown): { merchantId: string; amount: number } {
  const b = parseInput(codPayoutBody, body);
  return { merchantId: b.merchant_id, amount: b.amount };
}

export function codClaimsQuery(query: unknown): Record<string, unknown> {
  const q = parseInput(codClaimsQueryString, query);
  return { status: q.status, first: q.first, ...(q.courier_id !== undefined && { courierId: q.courier_id }), ...(q.after !== undefined && { after: q.after }) };
}
