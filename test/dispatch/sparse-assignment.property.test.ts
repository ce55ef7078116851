import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FORBIDDEN_COST, solveAssignment } from '../../src/domain/dispatch/assignment.js';
import { matchNearest } from '../../src/domain/dispatch/candidates.js';
import { createDispatchPlanner } from '../../src/domain/dispatch/planner.js';
import { DEFAULT_DISPATCH_POLICY } from '../../src/domain/dispatch/policy.js';
import { solveSparseAssignment, solveSparseAssignmentAsync, type SparseProblem } from '../../src/domain/dispatch/sparse-assignment.js';
import { distanceMeters } from '../../src/domain/geo.js';
import type { Courier, LatLng, Order } from '../../src/domain/types.js';

/**
 * The dispatch round's sparse solve (issue #37): on the pairs it is given it finds the dense
 * solver's optimum (as many pairs as possible, then the least cost), and with k at least the
 * number of couriers and orders the candidate lists hold every pair, so the round matches as the
 * dense round would. A courier that cannot make a pickup before its shift ends is never committed.
 */
const costs = fc.integer({ min: 1, max: 7 }).chain((rows) =>
  fc.integer({ min: 1, max: 7 }).chain((cols) =>
    fc.array(fc.array(fc.option(fc.integer({ min: -40, max: 200 }), { freq: 3 }), { minLength: cols, maxLength: cols }), { minLength: rows, maxLength: rows }),
  ),
);

/** Allowed pairs matched and their total cost. */
function score(answer: number[], cost: (r: number, c: number) => number): { pairs: number; total: number } {
  let pairs = 0;
  let total = 0;
  answer.forEach((c, r) => {
    if (c < 0) return;
    expect(cost(r, c)).toBeLessThan(FORBIDDEN_COST);
    pairs++;
    total += cost(r, c);
  });
  return { pairs, total };
}

function distinct(answer: number[]): void {
  const cols = answer.filter((c) => c >= 0);
  expect(new Set(cols).size).toBe(cols.length);
}

describe('sparse minimum-cost assignment', () => {
  it('finds the dense solver’s optimum on the listed pairs (unlisted ones forbidden)', async () => {
    await fc.assert(
      fc.asyncProperty(costs, async (table) => {
        const dense = table.map((row) => row.map((c) => c ?? FORBIDDEN_COST));
        const sparse: SparseProblem = {
          cols: table[0]!.length,
          rows: table.map((row) => {
            const listed = row.flatMap((c, j) => (c === null ? [] : [j]));
            return { cols: listed, costs: listed.map((j) => row[j]!) };
          }),
        };
        const at = (r: number, c: number) => dense[r]![c]!;
        const expected = score(solveAssignment(dense), at);
        const answer = solveSparseAssignment(sparse);
        distinct(answer);
        expect(score(answer, at)).toEqual(expected);
        expect(score(await solveSparseAssignmentAsync(sparse, { sliceMs: 0 }), at)).toEqual(expected);
      }),
      { numRuns: 400 },
    );
  });

  it('handles the empty cases', () => {
    expect(solveSparseAssignment({ cols: 0, rows: [] })).toEqual([]);
    expect(solveSparseAssignment({ cols: 3, rows: [{ cols: [], costs: [] }] })).toEqual([-1]);
  });
});

const point = fc.record({ lat: fc.double({ min: -33.55, max: -33.35, noNaN: true }), lng: fc.double({ min: -70.75, max: -70.55, noNaN: true }) });
const round = fc.record({
  couriers: fc.array(point, { minLength: 1, maxLength: 8 }),
  jobs: fc.array(point, { minLength: 1, maxLength: 8 }),
  noise: fc.array(fc.integer({ min: 0, max: 30 }), { minLength: 64, maxLength: 64 }),
  banned: fc.array(fc.nat(7), { maxLength: 3 }),
});

describe('the round over nearest candidates', () => {
  it('with k at least the couriers and orders, matches as the dense round (same pairs count, same total)', async () => {
    await fc.assert(
      fc.asyncProperty(round, async ({ couriers, jobs, noise, banned }) => {
        // Whole minutes of approach plus a per-pair term; a banned courier (off shift) may take nothing.
        const cost = (c: number, j: number) => (banned.includes(c) ? FORBIDDEN_COST : Math.ceil(distanceMeters(couriers[c]!, jobs[j]!) / 320) + noise[c * 8 + j]!);
        const k = Math.max(couriers.length, jobs.length);
        const answer = await matchNearest({ couriers, jobs, cost, k, sliceMs: 0 });
        distinct(answer);
        const dense = couriers.map((_, c) => jobs.map((_, j) => cost(c, j)));
        expect(score(answer, cost)).toEqual(score(solveAssignment(dense), cost));
      }),
      { numRuns: 300 },
    );
  });

  it('with a small k, still matches distinct pairs and never a forbidden one', async () => {
    await fc.assert(
      fc.asyncProperty(round, fc.integer({ min: 1, max: 3 }), async ({ couriers, jobs, noise, banned }, k) => {
        const cost = (c: number, j: number) => (banned.includes(c) ? FORBIDDEN_COST : Math.ceil(distanceMeters(couriers[c]!, jobs[j]!) / 320) + noise[c * 8 + j]!);
        const answer = await matchNearest({ couriers, jobs, cost, k, sliceMs: 0 });
        distinct(answer);
        score(answer, cost);
      }),
      { numRuns: 300 },
    );
  });
});

describe('the planner over candidate lists', () => {
  const NOW = Date.parse('2026-03-02T15:00:00.000Z');
  const iso = (ms: number) => new Date(ms).toISOString();
  const speedMpm = 320;

  it('never commits a courier whose shift ends before it could pick up', async () => {
    const scenario = fc.record({
      couriers: fc.array(fc.record({ at: point, shiftLeftMins: fc.option(fc.integer({ min: 0, max: 90 })) }), { minLength: 1, maxLength: 10 }),
      orders: fc.array(fc.record({ at: point, to: point, readyInMins: fc.integer({ min: -10, max: 40 }) }), { minLength: 1, maxLength: 10 }),
      k: fc.integer({ min: 1, max: 12 }),
    });
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const couriers = s.couriers.map((c, i) => ({
          id: `c${i}`, status: 'available', accountStatus: 'active', location: c.at, locationAt: iso(NOW), vehicle: 'bike', mode: 'live', job: null,
          shiftEndsAt: c.shiftLeftMins === null ? null : iso(NOW + c.shiftLeftMins * 60_000),
        })) as unknown as Courier[];
        const orders = s.orders.map((o, i) => ({
          id: `o${i}`, status: 'new', mode: 'live', merchantId: `m${i}`, vehicleType: 'bike', pickup: o.at, dropoff: o.to, stops: null, batchWindow: null, batchId: null,
          createdAt: iso(NOW - 5 * 60_000), prepTimeMins: 5 + o.readyInMins, scheduledPickupAt: null, estimatedDeliveryAt: iso(NOW + 90 * 60_000),
        })) as unknown as Order[];
        const approach = (c: Courier, o: Order) => Math.ceil(distanceMeters(c.location as LatLng, o.pickup) / speedMpm);
        const committed: Array<{ order: Order; courierId: string }> = [];
        const store = {
          orders: { listQueued: async () => orders },
          couriers: { listByMode: async () => couriers },
        };
        const policy = Object.assign({}, DEFAULT_DISPATCH_POLICY, { candidates: s.k });
        const planner = createDispatchPlanner({
          store: store as never, clock: { now: () => new Date(NOW) }, policy, vehicles: ['bike'],
          dispatch: {
            approachMinutes: approach, isLive: () => true, carriable: () => ['bike'],
            commitOrder: async (o: { order: Order; courierId: string }) => (committed.push(o), o.order),
          } as never,
        });
        await planner.planRound();
        expect(new Set(committed.map((c) => c.courierId)).size).toBe(committed.length);
        for (const { order, courierId } of committed) {
          const courier = couriers.find((c) => c.id === courierId)!;
          if (!courier.shiftEndsAt) continue;
          const arrive = NOW + approach(courier, order) * 60_000;
          const ready = Date.parse(order.createdAt) + order.prepTimeMins * 60_000;
          expect(Math.max(arrive + policy.handoverMs, ready)).toBeLessThanOrEqual(Date.parse(courier.shiftEndsAt));
        }
      }),
      { numRuns: 150 },
    );
  });
});
