/** The REST wire form of a sandbox run (POST /sandbox/runs), mapped in one step. */
import { z } from 'zod';
import { sandboxRunCommandSchema, type SandboxRunCommand } from '../../src/domain/sandbox-runs.js';
import { parseInput } from '../../src/domain/validation.js';
import { createOrderBody, createOrderCommand } from './orders.js';

const run = sandboxRunCommandSchema.shape;
const bothOrNeither = 'give exactly one of order (create one) or order_id (an existing test order)';
/** Flat, as the handler parses it: exactly one of `order` (form A, create it) and `order_id` (form B, an existing test order). The spec documents the two forms (oneOf). */
export const sandboxRunBody = z
  .strictObject({
    scenario: run.scenario,
    seed: run.seed,
    start_time: run.startTime,
    order: createOrderBody.optional().openapi({ description: 'Form A: the order to create and play, exactly as the body of POST /orders.' }),
    order_id: z.string().trim().min(1).max(128).optional()
      .openapi({ description: 'Form B: an existing test order of this merchant (booking id or any id the order routes accept), still new and not dispatched, scheduled or held for batching.' }),
  })
  .refine((b) => (b.order === undefined) !== (b.order_id === undefined), { message: bothOrNeither, path: [] });

export function sandboxRunCommand(body: unknown): SandboxRunCommand {
  const b = parseInput(sandboxRunBody, body);
  const common = { scenario: b.scenario, seed: b.seed, startTime: b.start_time };
  return b.order_id !== undefined ? Object.assign({}, common, { orderId: b.order_id }) : Object.assign({}, common, { order: createOrderCommand(b.order!) });
}
