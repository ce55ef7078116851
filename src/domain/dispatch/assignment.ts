import { setImmediate } from 'node:timers/promises';

/** A cost at or above this marks a pair that must not be matched (it is dropped from the answer). */
export const FORBIDDEN_COST = 1e9;

export interface AssignmentOptions {
  /** Yield to the event loop once a row's augmentation has run this long since the last yield (async solver only). */
  sliceMs?: number;
}

/**
 * Minimum-cost assignment of rows to columns (the Hungarian method with shortest augmenting paths,
 * Jonker–Volgenant potentials; O(r²·c) for r ≤ c): every row of the smaller side gets a distinct
 * column and the sum of their costs is least. Returns, per row, its column or -1 (no column, or only
 * forbidden ones). `cost[i][j]` must be finite; FORBIDDEN_COST or more forbids the pair.
 */
export function solveAssignment(cost: ReadonlyArray<ArrayLike<number>>): number[] {
  const solver = createSolver(cost);
  for (const _ of solver.steps());
  return solver.result();
}

/** The same, yielding to the event loop between rows once `sliceMs` has passed (2,000 × 2,000 takes seconds of CPU). */
export async function solveAssignmentAsync(cost: ReadonlyArray<ArrayLike<number>>, options: AssignmentOptions = {}): Promise<number[]> {
  const sliceMs = options.sliceMs ?? 10;
  const solver = createSolver(cost);
  let since = performance.now();
  let count = 0;
  for (const _ of solver.steps()) {
    // A clock read every 64 scans of a row (each O(columns)).
    if (++count % 64 === 0 && performance.now() - since >= sliceMs) {
      await setImmediate();
      since = performance.now();
    }
  }
  return solver.result();
}

function createSolver(cost: ReadonlyArray<ArrayLike<number>>) {
  const rows = cost.length;
  const cols = rows === 0 ? 0 : cost[0]!.length;
  // The algorithm wants n ≤ m: work on the transpose when there are more rows than columns.
  const transposed = rows > cols;
  const n = transposed ? cols : rows;
  const m = transposed ? rows : cols;
  const at = transposed ? (i: number, j: number) => cost[j]![i]! : (i: number, j: number) => cost[i]![j]!;
  // 1-based, as in the classical formulation: p[j] = row matched to column j (0: none), way = the path back.
  const u = new Float64Array(n + 1);
  const v = new Float64Array(m + 1);
  const p = new Int32Array(m + 1);
  const way = new Int32Array(m + 1);
  const minv = new Float64Array(m + 1);
  const used = new Uint8Array(m + 1);
  /** Adds the rows one by one along shortest augmenting paths, pausing after each scan of the columns. */
  function* steps(): Generator<void> {
    for (let row = 1; row <= n; row++) {
      yield* addRow(row);
    }
  }

  function* addRow(row: number): Generator<void> {
    p[0] = row;
    let j0 = 0;
    minv.fill(Infinity);
    used.fill(0);
    do {
      used[j0] = 1;
      const i0 = p[j0]!;
      let delta = Infinity;
      let j1 = 0;
      const ui0 = u[i0]!;
      for (let j = 1; j <= m; j++) {
        if (used[j]) continue;
        const cur = at(i0 - 1, j - 1) - ui0 - v[j]!;
        if (cur < minv[j]!) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j]! < delta) {
          delta = minv[j]!;
          j1 = j;
        }
      }
      for (let j = 0; j <= m; j++) {
        if (used[j]) {
          const i = p[j]!;
          u[i] = u[i]! + delta;
          v[j] = v[j]! - delta;
        } else minv[j] = minv[j]! - delta;
      }
      j0 = j1;
      yield;
    } while (p[j0] !== 0);
    do {
      const j1 = way[j0]!;
      p[j0] = p[j1]!;
      j0 = j1;
    } while (j0 !== 0);
  }

  function result(): number[] {
    const answer = new Array<number>(rows).fill(-1);
    for (let j = 1; j <= m; j++) {
      if (p[j] === 0) continue;
      const [r, c] = transposed ? [j - 1, p[j]! - 1] : [p[j]! - 1, j - 1];
      if (cost[r]![c]! < FORBIDDEN_COST) answer[r] = c;
    }
    return answer;
  }

  return { steps, result };
}
