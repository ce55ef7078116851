import { z } from 'zod';

/** A phone number with country code, normalised to E.164 (`+56912345678`). */
export const phoneSchema = z
  .string()
  .trim()
  .max(32)
  .transform((v) => v.replace(/[\s().-]/g, ''))
  .pipe(z.string().regex(/^\+[1-9]\d{7,14}$/, 'must include the country code, e.g. +56912345678'));
