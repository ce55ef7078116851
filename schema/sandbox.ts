import { AppError } from '../src/domain/errors.js';
import { sandboxRunCommandSchema, SANDBOX_SCENARIOS, type SandboxRunCommand, type SandboxRunResult } from '../src/domain/sandbox-runs.js';
import { builder } from './builder.js';
import { commandOf } from './commands.js';
import { IDEMPOTENCY_KEY_DESCRIPTION } from './idempotency.js';
import { merchantOf } from './merchants.js';
import { CreateOrderInput, createOrderCommandOf, OrderRef } from './orders.js';
import { DeliveryRef } from './webhooks.js';

const BOTH_OR_NEITHER = 'give exactly one of order (create one) or orderId (an existing test order)';

const ScenarioEnum = builder.enumType('SandboxScenario', { values: SANDBOX_SCENARIOS });

const PositionRef = builder.objectRef<SandboxRunResult['positions'][number]>('SandboxRunPosition').implement({
  fields: (t) => ({ at: t.field({ type: 'DateTime', resolve: (p) => p.at }), lat: t.exposeFloat('lat'), lng: t.exposeFloat('lng') }),
});

const SandboxRunRef = builder.objectRef<SandboxRunResult>('SandboxRun').implement({
  description: 'A delivery played at once on a virtual clock (POST /sandbox/runs): the same request gives the same ids, times and webhook bodies.',
  fields: (t) => ({
    id: t.exposeID('id'),
    scenario: t.field({ type: ScenarioEnum, resolve: (r) => r.scenario }),
    seed: t.exposeString('seed'),
    startTime: t.field({ type: 'DateTime', resolve: (r) => r.startTime }),
    endTime: t.field({ type: 'DateTime', resolve: (r) => r.endTime }),
    order: t.field({ type: OrderRef, resolve: (r) => r.order, description: 'The order at the end of the run; its `events` are the run\'s history.' }),
    positions: t.field({ type: [PositionRef], resolve: (r) => r.positions }),
    webhookDeliveries: t.field({ type: [DeliveryRef], resolve: (r) => r.deliveries, description: 'Every delivery the run wrote, in the order written.' }),
  }),
});

builder.mutationFields((t) => ({
  startSandboxRun: t.field({
    type: SandboxRunRef,
    authScopes: { merchant: true },
    errors: {},
    description: 'Test keys only: create the order (`order`) or take an existing new test order (`orderId`), exactly one of the two, and play the scenario from startTime on a virtual clock (see POST /sandbox/runs).',
    args: {
      scenario: t.arg({ type: ScenarioEnum, required: true }),
      seed: t.arg.string({ required: true }),
      startTime: t.arg({ type: 'DateTime', required: true }),
      order: t.arg({ type: CreateOrderInput, description: 'The order to create and play (or orderId).' }),
      orderId: t.arg.string({ description: 'An existing test order of this merchant (any id form), still new and not dispatched, scheduled or held (or order).' }),
      idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY_DESCRIPTION }),
    },
    resolve: (_r, args, ctx) => {
      const principal = merchantOf(ctx, 'operate');
      const common = commandOf(sandboxRunCommandSchema, { scenario: args.scenario, seed: args.seed, startTime: args.startTime });
      if ((args.order == null) === (args.orderId == null)) {
        throw new AppError('VALIDATION_ERROR', `Invalid request: ${BOTH_OR_NEITHER}`, { fields: [{ field: '(input)', message: BOTH_OR_NEITHER }] });
      }
      const input: SandboxRunCommand = args.orderId != null ? Object.assign(common, { orderId: args.orderId }) : Object.assign(common, { order: createOrderCommandOf(args.order!) });
      return ctx.services.sandboxRuns.startRun({ principal, input, idempotencyKey: args.idempotencyKey ?? undefined });
    },
  }),
}));
