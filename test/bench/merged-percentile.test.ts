import { describe, expect, it } from 'vitest';
import { mergedPercentile } from '../../bench/lib/load.js';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('bench: percentiles over the responses of alternating windows', () => {
  it('are taken over every response of every window (nearest rank), not averaged per window', () => {
    const windows = [{ latencies: range(1, 100) }, { latencies: range(101, 200) }];
    expect(mergedPercentile(windows, 50)).toBe(100);
    expect(mergedPercentile(windows, 99)).toBe(198);
    expect(mergedPercentile(windows, 100)).toBe(200);
  });

  it('weigh each window by its responses: a short slow window moves p99 only as far as its share', () => {
    const fast = { latencies: Array<number>(9_900).fill(5) };
    const slow = { latencies: Array<number>(100).fill(300) };
    expect(mergedPercentile([fast, slow], 99)).toBe(5);
    expect(mergedPercentile([fast, slow], 99.5)).toBe(300);
  });

  it('answer 0 without responses', () => {
    expect(mergedPercentile([{ latencies: [] }], 99)).toBe(0);
  });
});
