import type { SandboxRunResult } from '../../src/domain/sandbox-runs.js';
import { presentEvent } from './order.js';
import { presentDelivery } from './webhook.js';

export function presentSandboxRun(run: SandboxRunResult) {
  return {
    id: run.id,
    scenario: run.scenario,
    seed: run.seed,
    start_time: run.startTime,
    end_time: run.endTime,
    booking_id: run.order.id,
    tracking_number: run.order.trackingNumber,
    status: run.order.status,
    events: run.events.map(presentEvent),
    positions: run.positions,
    webhooks: run.deliveries.map(presentDelivery),
  };
}
