import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { previewCancellation } from '../../src/domain/orders/cancellation.js';
import { DEFAULT_SANTIAGO_TARIFF, tariffSchema } from '../../src/domain/tariffs.js';
import type { OrderStatus } from '../../src/domain/types.js';

const NOW = new Date('2026-03-02T15:00:00.000Z');
const LATER = '2026-03-02T15:12:00.000Z';
const tariff = DEFAULT_SANTIAGO_TARIFF;
const { assigned_fee, at_pickup_fee } = tariff.cancellation;

const orderIn = (status: OrderStatus, overrides: { price?: number; estimatedPickupAt?: string } = {}) => ({
  status, price: overrides.price ?? 5000, estimatedPickupAt: overrides.estimatedPickupAt ?? LATER,
});

describe('previewCancellation: what cancelling costs, by how far the order got', () => {
  const table: Array<[OrderStatus, boolean, number | null, string | null]> = [
    ['new', true, 0, null],
    ['assigned', true, assigned_fee, LATER],
    ['arrived_pickup', true, at_pickup_fee, null],
    ['picked_up', false, null, null],
    ['arrived_dropoff', false, null, null],
    ['completed', false, null, null],
    ['cancelled', false, null, null],
  ];
  it.each(table)('%s: cancellable %s, fee %s, valid until %s', (status, cancellable, fee, validUntil) => {
    expect(previewCancellation({ order: orderIn(status), at: NOW, tariff })).toEqual({ cancellable, fee, currency: 'CLP', basis: status, validUntil });
  });

  it('the default tariff charges nothing while new, then more the further the courier got', () => {
    expect(0).toBeLessThan(assigned_fee);
    expect(assigned_fee).toBeLessThan(at_pickup_fee);
  });

  it('never asks more than the order costs', () => {
    expect(previewCancellation({ order: orderIn('arrived_pickup', { price: 1500 }), at: NOW, tariff }).fee).toBe(1500);
  });

  it('an assigned order whose courier is already due at the pickup has no known end to its fee', () => {
    expect(previewCancellation({ order: orderIn('assigned', { estimatedPickupAt: '2026-03-02T14:59:00.000Z' }), at: NOW, tariff }).validUntil).toBeNull();
  });
});

describe('the tariff file cancellation policy', () => {
  const { cancellation: _omit, ...withoutPolicy } = DEFAULT_SANTIAGO_TARIFF;

  it('absent from a file: cancelling stays free (as before the policy existed)', () => {
    const parsed = tariffSchema.parse(withoutPolicy);
    expect(parsed.cancellation).toEqual({ assigned_fee: 0, at_pickup_fee: 0 });
    expect(previewCancellation({ order: orderIn('arrived_pickup'), at: NOW, tariff: parsed }).fee).toBe(0);
  });

  it('refuses fractional pesos, unknown fields and a pickup fee below the assigned fee, naming the field', () => {
    const issues = (cancellation: unknown) => tariffSchema.safeParse({ ...withoutPolicy, cancellation }).error?.issues.map((i) => i.path.join('.'));
    expect(issues({ assigned_fee: 990.5, at_pickup_fee: 1990 })).toEqual(['cancellation.assigned_fee']);
    expect(issues({ assigned_fee: 990, at_pickup_fee: 1990, after_pickup_fee: 5000 })).toEqual(['cancellation']);
    expect(issues({ assigned_fee: 1990, at_pickup_fee: 990 })).toEqual(['cancellation.at_pickup_fee']);
  });

  it('a TARIFF_FILE with a bad policy stops the boot with a message naming the field; a good one is loaded', () => {
    const dir = mkdtempSync(join(tmpdir(), 'exd-tariff-'));
    try {
      const file = join(dir, 'tariff.json');
      writeFileSync(file, JSON.stringify({ ...withoutPolicy, cancellation: { assigned_fee: -1, at_pickup_fee: 1990 } }));
      expect(() => loadConfig({ DATA_DIR: dir, TARIFF_FILE: file })).toThrow(/TARIFF_FILE cancellation\.assigned_fee:/);
      writeFileSync(file, JSON.stringify({ ...withoutPolicy, cancellation: { assigned_fee: 500, at_pickup_fee: 1500 } }));
      expect(loadConfig({ DATA_DIR: dir, TARIFF_FILE: file }).tariff.cancellation).toEqual({ assigned_fee: 500, at_pickup_fee: 1500 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
