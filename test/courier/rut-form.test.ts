import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { normalizeRut } from '../../src/domain/rut.js';
import { isValidRut } from '../../web/shared/rut.js';

const samples = JSON.parse(readFileSync(new URL('../fixtures/rut-samples.json', import.meta.url), 'utf8')) as {
  valid: Array<{ rut: string }>;
  invalid: Array<{ rut: string }>;
};

describe("the apps' RUT check agrees with the server's", () => {
  it('on every sample, in every accepted spelling, and on malformed input', () => {
    const spellings = (rut: string) => [rut, rut.replace(/\./g, ''), rut.replace(/[.-]/g, ''), rut.toLowerCase(), ` ${rut} `];
    const inputs = [...samples.valid, ...samples.invalid].flatMap(({ rut }) => spellings(rut)).concat(['', 'abc', '1-9', '123.456-7', '00.000.001-9']);
    for (const input of inputs) expect(isValidRut(input), input).toBe(normalizeRut(input) !== null);
    expect(samples.valid.every(({ rut }) => isValidRut(rut))).toBe(true);
    expect(samples.invalid.some(({ rut }) => isValidRut(rut))).toBe(false);
  });
});
