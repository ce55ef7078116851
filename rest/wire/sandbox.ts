/** The REST wire form of a sandbox run (POST /sandbox/runs), mapped in one step; also the OpenAPI body. */
import { z } from 'zod';
import { sandboxRunCommandSchema, type SandboxRunCommand } from '../../src/domain/sandbox-runs.js';
import { parseInput } from '../../src/domain/validation.js';
import { createOrderBody, createOrderCommand } from './orders.js';

const run = sandboxRunCommandSchema.shape;
export const sandboxRunBody = z.strictObject({
  scenario: run.scenario,
  seed: run.seed,
  start_time: run.startTime,
  order: createOrderBody.openapi({ description: 'The order to create and play, exactly as the body of POST /orders.' }),
});

export function sandboxRunCommand(body: unknown): SandboxRunCommand {
  const b = parseInput(sandboxRunBody, body);
  return { scenario: b.scenario, seed: b.seed, startTime: b.start_time, order: createOrderCommand(b.order) };
}
