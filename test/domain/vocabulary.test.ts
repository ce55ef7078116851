import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../src/domain/errors.js';
import { sourcesOf, TRANSITIONS } from '../../src/domain/orders/state-machine.js';
import {
  ERROR_CODES, ORDER_STATUS_SETS, ORDER_STATUSES, ORDER_STEPS, STOP_STATUS_SETS, STOP_STATUSES, WEB_VOCABULARY, WEBHOOK_EVENT_TYPES, type OrderStatus,
} from '../../src/domain/vocabulary.js';

const inCanonicalOrder = (set: readonly string[], all: readonly string[]) => all.filter((s) => set.includes(s));

describe('the vocabulary: one definition of each status set, held to the transition table', () => {
  it('terminal is exactly the statuses with no move out, active the rest', () => {
    expect([...ORDER_STATUS_SETS.terminal]).toEqual(ORDER_STATUSES.filter((s) => TRANSITIONS[s].length === 0));
    expect([...ORDER_STATUS_SETS.active]).toEqual(ORDER_STATUSES.filter((s) => TRANSITIONS[s].length > 0));
  });

  it('cancellable is exactly the statuses from which cancelled can be reached', () => {
    expect([...ORDER_STATUS_SETS.cancellable]).toEqual(sourcesOf('cancelled'));
  });

  it('every set lists known statuses once, in the canonical order (the SQL filters are written from it)', () => {
    for (const [name, set] of Object.entries(ORDER_STATUS_SETS)) {
      expect([...set], name).toEqual(inCanonicalOrder(set, ORDER_STATUSES));
    }
    for (const [name, set] of Object.entries(STOP_STATUS_SETS)) {
      expect([...set], name).toEqual(inCanonicalOrder(set, STOP_STATUSES));
    }
  });

  it('tippable and followed hold no terminal status but completed (a delivered order takes a tip for 24 h)', () => {
    const terminal = new Set<OrderStatus>(ORDER_STATUS_SETS.terminal);
    expect(ORDER_STATUS_SETS.tippable.filter((s) => terminal.has(s))).toEqual(['completed']);
    expect(ORDER_STATUS_SETS.followed.filter((s) => terminal.has(s))).toEqual([]);
  });

  it('the steps are a path through the transition table', () => {
    for (let i = 1; i < ORDER_STEPS.length; i++) expect(TRANSITIONS[ORDER_STEPS[i - 1]!], ORDER_STEPS[i]).toContain(ORDER_STEPS[i]);
  });

  it('the web vocabulary carries the error codes of the one table and the events as GraphQL names them', () => {
    expect(ERROR_CODES).toEqual(Object.keys(ERROR_STATUS));
    expect(WEB_VOCABULARY.WEBHOOK_EVENTS).toEqual(WEBHOOK_EVENT_TYPES.map((t) => t.replace('.', '_').toUpperCase()));
  });
});
