import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, presentError } from '../../src/domain/errors.js';
import { ORDER_NOTES } from '../../src/domain/orders/notes.js';
import { ACTOR_KINDS, FAILED_ATTEMPT_POLICIES, FAILED_ATTEMPT_REASONS, ORDER_STATUSES, RATE_IDS, VEHICLE_TYPES } from '../../src/domain/types.js';
import { FIELD_MESSAGES, validationError } from '../../src/domain/validation.js';
import { URL_REASONS } from '../../src/domain/webhooks/endpoints.js';
import { messageOf, refusal } from '../../web/shared/api/errors.js';
import {
  ACTOR_LABELS, ERROR_CODES as CONSOLE_CODES, ERROR_TEXT, FAILED_POLICY_LABELS, FAILED_REASON_LABELS, FIELD_TEXT, fieldReason, NOTE_LABELS, RATE_LABELS, UNKNOWN_ERROR_TEXT, VEHICLE_LABELS,
} from '../../web/shared/catalog.js';
import { LANGS } from '../../web/shared/i18n.js';
import { STATUS_LABELS } from '../../web/shared/ui/status.js';

/** The keys of `labels` in each language that have no non-empty text. */
function untranslated(labels: Record<string, Record<string, string>>, keys: readonly string[]): string[] {
  return LANGS.flatMap((lang) => keys.filter((key) => !labels[lang]?.[key]?.trim()).map((key) => `${lang}:${key}`));
}

describe('the console catalog speaks for every code and label the server sends', () => {
  it('lists exactly the API error codes, each in Spanish and English', () => {
    expect([...CONSOLE_CODES].sort()).toEqual([...ERROR_CODES].sort());
    expect(untranslated(ERROR_TEXT, [...ERROR_CODES, 'NETWORK'])).toEqual([]);
    // Spanish first: a copied English text is not a translation.
    expect(ERROR_CODES.filter((code) => ERROR_TEXT.es[code] === ERROR_TEXT.en[code])).toEqual([]);
  });

  it('translates every order status, vehicle, rate, actor, history note, failed-attempt reason and policy', () => {
    expect(untranslated(STATUS_LABELS, ORDER_STATUSES)).toEqual([]);
    expect(untranslated(VEHICLE_LABELS, VEHICLE_TYPES)).toEqual([]);
    expect(untranslated(RATE_LABELS, RATE_IDS)).toEqual([]);
    expect(untranslated(ACTOR_LABELS, ACTOR_KINDS)).toEqual([]);
    expect(untranslated(NOTE_LABELS, Object.values(ORDER_NOTES))).toEqual([]);
    expect(untranslated(FIELD_TEXT, [...Object.values(FIELD_MESSAGES), 'invalid'])).toEqual([]);
    expect(untranslated(FAILED_REASON_LABELS, FAILED_ATTEMPT_REASONS)).toEqual([]);
    expect(untranslated(FAILED_POLICY_LABELS, FAILED_ATTEMPT_POLICIES)).toEqual([]);
    // Exactly the server's lists: a reason or policy added there fails here until it is worded.
    expect(Object.keys(FAILED_REASON_LABELS.es).sort()).toEqual([...FAILED_ATTEMPT_REASONS].sort());
    expect(Object.keys(FAILED_POLICY_LABELS.es).sort()).toEqual([...FAILED_ATTEMPT_POLICIES].sort());
  });

  it("words a real validation refusal's fields in the page's language, never the server's English", () => {
    const schema = z.object({ email: z.string(), weight: z.number().positive() }).strict();
    const wire = presentError(validationError(schema.safeParse({ weight: -1, colour: 'red' }).error!, { weight: -1, colour: 'red' })).error;
    const error = refusal(wire.code, wire.message, wire.details, wire.fields);

    const es = messageOf(error, 'es');
    expect(es.text).toBe(ERROR_TEXT.es.VALIDATION_ERROR);
    expect(es.fields.sort()).toEqual(['colour: no es un campo conocido', 'email: es obligatorio', 'weight: es demasiado pequeño o corto'].sort());
    expect(messageOf(error, 'en').fields.sort()).toEqual(['colour: is not a known field', 'email: is required', 'weight: is too small or short'].sort());
    expect(es.fields.join(' ')).not.toMatch(/Number must|greater than|Too small|expected/i);
  });

  it('words the webhook URL refusals and zod\'s own messages, and says what to do next for an unknown code', () => {
    expect(untranslated(FIELD_TEXT, Object.values(URL_REASONS))).toEqual([]);
    expect(Object.values(URL_REASONS).filter((reason) => FIELD_TEXT.es[reason] === FIELD_TEXT.en[reason])).toEqual([]);
    expect(fieldReason('Too small: expected number to be >0', 'es')).toBe('es demasiado pequeño o corto');
    expect(fieldReason('The requested delivery deadline is earlier than the earliest possible delivery (2026-12-07T20:00:00.000Z)', 'es'))
      .toBe('no alcanzamos a entregar antes de esa hora: elige una más tarde');
    expect(fieldReason('something new the server says', 'es')).toBe('no es válido');
    const unknown = messageOf(refusal('SOMETHING_NEW', 'Something new happened'), 'es');
    expect(unknown.text).toBe(UNKNOWN_ERROR_TEXT.es);
    expect(unknown.text).not.toContain('SOMETHING_NEW');
  });
});
