/**
 * Santiago's wall clock for `<input type="datetime-local">` (which has no zone): the console shows
 * and takes times on America/Santiago whatever the browser's zone.
 */
const PARTS = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/Santiago', hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
});

/** How far Santiago's clock is from UTC at an instant (ms; negative: behind). */
function offsetAt(ms: number): number {
  const p = Object.fromEntries(PARTS.formatToParts(new Date(ms)).map((part) => [part.type, Number(part.value)]));
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) - Math.floor(ms / 1000) * 1000;
}

/** An instant as a datetime-local value ("2026-11-26T09:30") on Santiago's clock. */
export function toSantiagoInput(ms: number): string {
  return new Date(ms + offsetAt(ms)).toISOString().slice(0, 16);
}

/** A datetime-local value read on Santiago's clock, as an ISO instant. */
export function fromSantiagoInput(value: string): string {
  const wall = Date.parse(`${value.length === 16 ? `${value}:00` : value}Z`);
  // Twice: the first guess may sit across a daylight-saving change from the answer.
  const guess = wall - offsetAt(wall);
  return new Date(wall - offsetAt(guess)).toISOString();
}
