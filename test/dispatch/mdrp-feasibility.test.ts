import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readInstance, type MdrpInstance } from '../../bench/lib/mdrp/instance.js';
import { checkFeasibility, summarize, writeSolution, type Solution } from '../../bench/lib/mdrp/solution.js';

/**
 * The evaluator's feasibility rules (grubhub/mdrplib, MDRP_code/compute_performance_summary.py) as
 * the bench checks them: a hand-built feasible solution passes, and each rule broken alone is caught.
 */
const instance: MdrpInstance = {
  name: 'tiny',
  metersPerMinute: 100, pickupServiceMins: 4, dropoffServiceMins: 4, targetClickToDoor: 40, maxClickToDoor: 90,
  restaurants: new Map([['r1', { id: 'r1', x: 0, y: 0 }]]),
  couriers: [{ id: 'c1', x: 0, y: 1000, on: 0, off: 60 }],
  orders: [
    { id: 'o1', x: 1000, y: 0, placement: 0, restaurant: 'r1', ready: 15 },
    { id: 'o2', x: 2000, y: 0, placement: 5, restaurant: 'r1', ready: 16 },
  ],
};

/** c1 leaves its start at 5, reaches r1 at 15, picks both up at 17 (ready 16), leaves at 19: o1 at 29 (drop 31), o2 at 43 (drop 45). */
function feasible(): Solution {
  return {
    assignments: [{ assignmentTime: 5, pickupTime: 17, courier: 'c1', orders: ['o1', 'o2'] }],
    orders: [
      { order: 'o1', pickupTime: 17, dropoffTime: 31, courier: 'c1' },
      { order: 'o2', pickupTime: 17, dropoffTime: 45, courier: 'c1' },
    ],
    moves: [
      { courier: 'c1', departure: 5, origin: 'c1', destination: 'r1' },
      { courier: 'c1', departure: 19, origin: 'r1', destination: 'o1' },
      { courier: 'c1', departure: 33, origin: 'o1', destination: 'o2' },
    ],
  };
}

describe('MDRP feasibility check', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('accepts a feasible bundle and summarizes it as the evaluator does', () => {
    expect(checkFeasibility(instance, feasible())).toEqual([]);
    const summary = summarize(instance, feasible());
    expect(summary.delivered).toBe(2);
    expect(summary.meanClickToDoor).toBe((31 - 0 + 45 - 5) / 2);
    expect(summary.meanReadyToPickup).toBe((17 - 15 + 17 - 16) / 2);
    expect(summary.ordersInBundles).toBe(2);
  });

  it('catches a pickup before the ready time', () => {
    const s = feasible();
    s.assignments[0]!.pickupTime = 15.5;
    expect(checkFeasibility(instance, s).join('\n')).toMatch(/o2 picked up at 15.5, before it is ready at 16/);
  });

  it('catches a pickup after the courier’s off time', () => {
    const s = feasible();
    const late = Object.assign({}, instance, { couriers: [{ id: 'c1', x: 0, y: 1000, on: 0, off: 16 }] });
    expect(checkFeasibility(late, s).join('\n')).toMatch(/after its off time 16/);
  });

  it('catches an assignment before the order is placed and an order in two assignments', () => {
    const s = feasible();
    s.assignments[0]!.assignmentTime = 3;
    s.assignments.push({ assignmentTime: 40, pickupTime: 50, courier: 'c1', orders: ['o1'] });
    const found = checkFeasibility(instance, s).join('\n');
    expect(found).toMatch(/o2 assigned at 3, before its placement 5/);
    expect(found).toMatch(/o1 is in 2 assignments/);
  });

  it('catches drop-offs closer than the service time, and out of the bundle’s order', () => {
    const s = feasible();
    s.orders[1]!.dropoffTime = 33;
    expect(checkFeasibility(instance, s).join('\n')).toMatch(/o2 dropped at 33, less than a drop-off service after/);
  });

  it('catches teleporting, leaving before arriving, and stops made where the courier is not', () => {
    const jump = feasible();
    jump.moves[2]!.origin = 'r1';
    expect(checkFeasibility(instance, jump).join('\n')).toMatch(/leaves r1 at 33 but stands at o1/);
    const early = feasible();
    early.moves[1]!.departure = 14; // still on its way to r1 (arrives at 15)
    expect(checkFeasibility(instance, early).join('\n')).toMatch(/departs before it arrives/);
    const elsewhere = feasible();
    elsewhere.orders[0]!.dropoffTime = 28; // the courier arrives at o1 at 29
    expect(checkFeasibility(instance, elsewhere).join('\n')).toMatch(/o1 dropped at 28 by c1, who stands at nowhere/);
    const atArrival = feasible();
    atArrival.assignments[0]!.pickupTime = 15; // arrival minute: not yet there by the evaluator's rule (strictly before)
    expect(checkFeasibility(instance, atArrival).join('\n')).toMatch(/picked up at 15 by c1, who stands at nowhere/);
  });

  it('writes the evaluator’s three files in its formats', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mdrp-sol-'));
    dirs.push(dir);
    const s = feasible();
    s.orders[1] = { order: 'o2', pickupTime: null, dropoffTime: null, courier: null };
    writeSolution(dir, instance, s);
    expect(readFileSync(join(dir, 'solution_info_assignments.txt'), 'utf8')).toBe('assignment_time pickup_time courier orders\n5 17 c1 o1 o2\n');
    expect(readFileSync(join(dir, 'solution_info_orders.txt'), 'utf8')).toBe(
      'order placement_time restaurant ready_time pickup_time dropoff_time courier\no1 0 r1 15 17 31 c1\no2 5 r1 16 NaN NaN NaN\n',
    );
    expect(readFileSync(join(dir, 'solution_info_couriers.txt'), 'utf8')).toBe('courier departure_time origin destination\nc1 5 c1 r1\nc1 19 r1 o1\nc1 33 o1 o2\n');
  });

  it('reads the fixture instances (copied unchanged from grubhub/mdrplib)', () => {
    const read = readInstance('test/fixtures/mdrp/0o50t75s1p100');
    expect(read.orders).toHaveLength(252);
    expect(read.couriers).toHaveLength(61);
    expect(read.metersPerMinute).toBe(427);
    expect(read.pickupServiceMins).toBe(4);
  });
});
