import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FORBIDDEN_COST, solveAssignment, solveAssignmentAsync } from '../../src/domain/dispatch/assignment.js';

/** The least total cost over every way of matching min(rows, cols) rows to distinct columns, tried one by one. */
function bruteForce(cost: number[][]): number {
  const rows = cost.length;
  const cols = cost[0]!.length;
  const k = Math.min(rows, cols);
  let best = Infinity;
  const usedRows = new Set<number>();
  const usedCols = new Set<number>();
  // Choose, for each of the k slots, a distinct row and column (rows in increasing order to avoid repeats).
  function go(minRow: number, picked: number, sum: number) {
    if (picked === k) {
      best = Math.min(best, sum);
      return;
    }
    for (let r = minRow; r < rows; r++) {
      if (usedRows.has(r)) continue;
      usedRows.add(r);
      for (let c = 0; c < cols; c++) {
        if (usedCols.has(c)) continue;
        usedCols.add(c);
        go(r + 1, picked + 1, sum + cost[r]![c]!);
        usedCols.delete(c);
      }
      usedRows.delete(r);
    }
  }
  go(0, 0, 0);
  return best;
}

const matrix = fc.integer({ min: 1, max: 6 }).chain((rows) =>
  fc.integer({ min: 1, max: 6 }).chain((cols) =>
    fc.array(fc.array(fc.integer({ min: -50, max: 200 }), { minLength: cols, maxLength: cols }), { minLength: rows, maxLength: rows }),
  ),
);

describe('minimum-cost assignment', () => {
  it('matches min(rows, cols) pairs, each row and column once, at the brute-force optimum', () => {
    fc.assert(
      fc.property(matrix, (cost) => {
        const answer = solveAssignment(cost);
        const cols = answer.filter((c) => c >= 0);
        expect(cols).toHaveLength(Math.min(cost.length, cost[0]!.length));
        expect(new Set(cols).size).toBe(cols.length);
        const total = answer.reduce((sum, c, r) => (c >= 0 ? sum + cost[r]![c]! : sum), 0);
        expect(total).toBe(bruteForce(cost));
      }),
      { numRuns: 300 },
    );
  });

  it('never matches a forbidden pair, and the async solver gives the same optimum', async () => {
    await fc.assert(
      fc.asyncProperty(matrix, fc.array(fc.tuple(fc.nat(5), fc.nat(5)), { maxLength: 8 }), async (cost, banned) => {
        const withBans = cost.map((row, r) => row.map((c, j) => (banned.some(([br, bc]) => br === r && bc === j) ? FORBIDDEN_COST : c)));
        const answer = solveAssignment(withBans);
        answer.forEach((c, r) => c >= 0 && expect(withBans[r]![c]!).toBeLessThan(FORBIDDEN_COST));
        const sum = (a: number[]) => a.reduce((s, c, r) => (c >= 0 ? s + withBans[r]![c]! : s), 0);
        expect(sum(await solveAssignmentAsync(withBans, { sliceMs: 0 }))).toBe(sum(answer));
      }),
      { numRuns: 200 },
    );
  });

  it('handles the empty case', () => {
    expect(solveAssignment([])).toEqual([]);
    expect(solveAssignment([[]])).toEqual([-1]);
  });
});
