/** The planned end of a duty as a person picks it (issue #37): a clock time on this device (courier app, /ops). */

/** The server's bound: a planned end at most this many hours ahead. */
export const MAX_SHIFT_HOURS = 16;

/**
 * The next time the phone's clock shows `hhmm` ("22:30"), as an ISO instant: today, or tomorrow
 * when that time has passed. null when the value is not a time.
 */
export function nextOccurrence(hhmm: string, now: Date): Date | null {
  const match = /^(\d{2}):(\d{2})$/.exec(hhmm);
  if (!match) return null;
  const at = new Date(now);
  at.setHours(Number(match[1]), Number(match[2]), 0, 0);
  if (at.getTime() <= now.getTime()) at.setDate(at.getDate() + 1);
  return at;
}

/** Whether the server takes it: in the future, at most MAX_SHIFT_HOURS ahead. */
export const withinShiftBound = (end: Date, now: Date) => end.getTime() > now.getTime() && end.getTime() - now.getTime() <= MAX_SHIFT_HOURS * 3_600_000;

/** "22:30" in the courier's language. */
export const clockTime = (iso: string, lang: 'es' | 'en') =>
  new Intl.DateTimeFormat(lang === 'es' ? 'es-CL' : 'en-GB', { hour: '2-digit', minute: '2-digit', hour12: false }).format(new Date(iso));
