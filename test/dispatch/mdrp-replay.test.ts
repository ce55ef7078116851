import { describe, expect, it } from 'vitest';
import { readInstance } from '../../bench/lib/mdrp/instance.js';
import { replayInstance } from '../../bench/lib/mdrp/replay.js';
import { checkFeasibility } from '../../bench/lib/mdrp/solution.js';

/**
 * A fast replay of one MDRP fixture instance (its first 80 orders; the whole of the six is
 * `npm run bench:dispatch -- --all test/fixtures/mdrp`) through the service's own dispatch, the
 * planner's rounds and the courier services: every order delivered, no courier withdrawn at its
 * shift's end, and the evaluator's feasibility rules hold on the solution.
 */
describe('MDRP replay through live dispatch', () => {
  it('0o50t75s1p100, first 80 orders: feasible, all delivered, no withdrawal', async () => {
    const instance = readInstance('test/fixtures/mdrp/0o50t75s1p100');
    const result = await replayInstance({ instance, orderLimit: 80 });
    expect(checkFeasibility(Object.assign({}, instance, { orders: instance.orders }), result.solution)).toEqual([]);
    expect(result.summary.delivered).toBe(80);
    expect(result.withdrawals).toBe(0);
    // Loose bound (the bench reports the figure): couriers are committed to arrive by the ready time.
    expect(result.summary.meanReadyToPickup).toBeLessThan(5);
  }, 60_000);
});
