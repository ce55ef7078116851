import { normalizeRut } from '../../src/domain/rut.js';

/**
 * The RUT check digit, for forms to flag a typo at once: the server's own rule (src/domain/rut.ts
 * has no dependencies, so the bundle takes it as is). The server still decides.
 */
export const isValidRut = (input: string): boolean => normalizeRut(input) !== null;
