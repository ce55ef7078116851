import type { IdCheckProof, IdCheckRequirement } from '../src/domain/types.js';
import { builder } from './builder.js';

/** The order's flag: the courier checks the recipient's ID at the door (issue #30). */
export const IdCheckRequirementInput = builder.inputType('IdCheckRequirementInput', {
  fields: (t) => ({
    required: t.boolean({ required: true, description: 'true: the delivery needs the recipient\'s ID checked.' }),
    minAge: t.int({ description: 'The minimum age on the delivery date, 18–99 (default 18).' }),
  }),
});

export const IdCheckRequirementRef = builder.objectRef<IdCheckRequirement>('IdCheckRequirement').implement({
  description: "The delivery needs the recipient's ID checked: a valid RUT and at least minAge on the delivery date (Santiago).",
  fields: (t) => ({ required: t.boolean({ resolve: () => true }), minAge: t.exposeInt('minAge') }),
});

/** What the courier reads off the recipient's ID. */
export const IdCheckInput = builder.inputType('IdCheckInput', {
  fields: (t) => ({
    documentNumber: t.string({ required: true, description: 'The RUT (check digit validated; only its last 4 characters are kept).' }),
    dateOfBirth: t.string({ required: true, description: 'ISO date, YYYY-MM-DD.' }),
  }),
});

export const IdCheckRef = builder.objectRef<IdCheckProof>('IdCheck').implement({
  description: "A passed ID check, recorded in the proof without the full document number.",
  fields: (t) => ({
    verified: t.boolean({ resolve: () => true }),
    minAge: t.exposeInt('minAge'),
    documentLast4: t.exposeString('documentLast4'),
    checkedAt: t.field({ type: 'DateTime', resolve: (c) => c.checkedAt }),
  }),
});
