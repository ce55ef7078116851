import { setImmediate } from 'node:timers/promises';
import { FORBIDDEN_COST } from './assignment.js';

/** The pairs a row may take: parallel lists of columns and their costs (a pair not listed is forbidden). */
export interface SparseRow { cols: number[]; costs: number[] }

export interface SparseProblem { cols: number; rows: SparseRow[] }

/**
 * Minimum-cost assignment on a sparse cost matrix (the dispatch round's k-nearest candidate lists):
 * as many rows as possible get a distinct listed column, and among those largest matchings the sum
 * of costs is least — what the dense solver (assignment.ts) returns with FORBIDDEN_COST for the
 * pairs not listed. Successive shortest augmenting paths with Dijkstra on reduced costs (Johnson
 * potentials on rows and columns); a search only reaches the columns connected to the row through
 * listed pairs, so a round of 2,000 × 2,000 with 10–20 pairs a row takes milliseconds, not seconds.
 * Each row also has a private "unassigned" column at FORBIDDEN_COST: skipping a row that finds no
 * free column would not be optimal (a later row may deserve its column more). Put the smaller side
 * in the rows: a row left unassigned searches its whole connected part. Returns, per row, its column or -1.
 */
export function solveSparseAssignment(problem: SparseProblem): number[] {
  const solver = createSparseSolver(problem);
  for (let row = 0; row < problem.rows.length; row++) solver.augment(row);
  return solver.result();
}

/** The same, yielding to the event loop between rows once `sliceMs` has passed since the last yield. */
export async function solveSparseAssignmentAsync(problem: SparseProblem, options: { sliceMs?: number } = {}): Promise<number[]> {
  const sliceMs = options.sliceMs ?? 10;
  const solver = createSparseSolver(problem);
  let since = performance.now();
  for (let row = 0; row < problem.rows.length; row++) {
    solver.augment(row);
    if (performance.now() - since >= sliceMs) {
      await setImmediate();
      since = performance.now();
    }
  }
  return solver.result();
}

function createSparseSolver(listed: SparseProblem) {
  const n = listed.rows.length;
  const m = listed.cols + n;
  const problem: SparseProblem = {
    cols: m,
    rows: listed.rows.map((r, i) => ({ cols: [...r.cols, listed.cols + i], costs: [...r.costs, FORBIDDEN_COST] })),
  };
  // Potentials: a listed pair's reduced cost cost + rowPi − colPi is never negative, and zero on matched
  // pairs; a free column's stays 0, so reduced path lengths to free columns compare as true ones do.
  const rowPi = Float64Array.from(problem.rows, (r) => -Math.min(...r.costs));
  const colPi = new Float64Array(m);
  const colOf = new Int32Array(n).fill(-1);
  const rowOf = new Int32Array(m).fill(-1);
  const colDist = new Float64Array(m).fill(Infinity);
  const rowDist = new Float64Array(n).fill(Infinity);
  /** The row from which a column was reached on the shortest path. */
  const via = new Int32Array(m).fill(-1);
  const done = new Uint8Array(m);
  const heap = createHeap(m);
  // A row whose cheapest column is still free takes it (a tight pair keeps the potentials' invariants);
  // the searches below then only run for the rows that compete for a column.
  for (let row = 0; row < n; row++) {
    const { cols, costs } = problem.rows[row]!;
    const best = cols[costs.indexOf(-rowPi[row]!)]!;
    if (rowOf[best] === -1) {
      rowOf[best] = row;
      colOf[row] = best;
    }
  }

  function augment(source: number): void {
    if (colOf[source] !== -1) return;
    const touchedCols: number[] = [];
    const reachedRows: number[] = [source];
    rowDist[source] = 0;
    let row = source;
    let found = -1;
    let total = Infinity;
    for (;;) {
      const { cols, costs } = problem.rows[row]!;
      const base = rowDist[row]! + rowPi[row]!;
      for (let k = 0; k < cols.length; k++) {
        const col = cols[k]!;
        if (done[col]) continue;
        const d = base + costs[k]! - colPi[col]!;
        if (d < colDist[col]!) {
          if (colDist[col] === Infinity) touchedCols.push(col);
          colDist[col] = d;
          via[col] = row;
          heap.push(col, d);
        }
      }
      const next = heap.popMin(colDist, done);
      if (next < 0) break; // cannot happen: the row's own "unassigned" column is always free
      done[next] = 1;
      if (rowOf[next] === -1) {
        found = next;
        total = colDist[next]!;
        break;
      }
      row = rowOf[next]!;
      rowDist[row] = colDist[next]!;
      reachedRows.push(row);
    }
    if (found >= 0) {
      // Potentials follow the distances (capped at the path's length), keeping reduced costs non-negative.
      for (const col of touchedCols) if (done[col]) colPi[col] = colPi[col]! - (total - colDist[col]!);
      for (const r of reachedRows) rowPi[r] = rowPi[r]! - (total - rowDist[r]!);
      for (let col = found; col >= 0;) {
        const r = via[col]!;
        const previous = colOf[r]!;
        colOf[r] = col;
        rowOf[col] = r;
        col = previous;
      }
    }
    for (const col of touchedCols) {
      colDist[col] = Infinity;
      done[col] = 0;
    }
    for (const r of reachedRows) rowDist[r] = Infinity;
    heap.clear();
  }

  return { augment, result: () => Array.from(colOf, (col, row) => (col >= listed.cols || (listed.rows[row]!.costs[listed.rows[row]!.cols.indexOf(col)] ?? FORBIDDEN_COST) >= FORBIDDEN_COST ? -1 : col)) };
}

/** A binary min-heap of columns by distance, with stale entries skipped on pop (no decrease-key). */
function createHeap(capacity: number) {
  let keys = new Float64Array(Math.max(16, capacity));
  let items = new Int32Array(Math.max(16, capacity));
  let size = 0;
  function push(item: number, key: number): void {
    if (size === keys.length) {
      const k2 = new Float64Array(size * 2);
      k2.set(keys);
      keys = k2;
      const i2 = new Int32Array(size * 2);
      i2.set(items);
      items = i2;
    }
    let i = size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (keys[parent]! <= key) break;
      keys[i] = keys[parent]!;
      items[i] = items[parent]!;
      i = parent;
    }
    keys[i] = key;
    items[i] = item;
  }
  function pop(): number {
    const top = items[0]!;
    const lastKey = keys[--size]!;
    const lastItem = items[size]!;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && keys[child + 1]! < keys[child]!) child++;
      if (keys[child]! >= lastKey) break;
      keys[i] = keys[child]!;
      items[i] = items[child]!;
      i = child;
    }
    keys[i] = lastKey;
    items[i] = lastItem;
    return top;
  }
  /** The nearest column not yet settled whose entry is current; -1 when none is left. */
  function popMin(dist: Float64Array, done: Uint8Array): number {
    while (size > 0) {
      const key = keys[0]!;
      const item = pop();
      if (!done[item] && key === dist[item]) return item;
    }
    return -1;
  }
  return { push, popMin, clear: () => void (size = 0) };
}
