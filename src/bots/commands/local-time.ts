// Times in a person's own zone (set with /timezone or /quiet, or PUT /preferences): a snooze's end
// read at a glance. The zone is named, so "14:00" is never mistaken for UTC.

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' });
    formatters.set(timeZone, f);
  }
  return f;
}

/** `2026-11-24T13:00:00.000Z`, `Europe/Paris` → `2026-11-24 14:00 Europe/Paris`. */
export function localMinute(iso: string, timeZone: string): string {
  const p = Object.fromEntries(formatter(timeZone).formatToParts(new Date(iso)).map((part) => [part.type, part.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute} ${timeZone}`;
}

const WALL_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})$/;

/** The wall clock of an instant in a zone, as if it were UTC: the zone's offset is the difference. */
function wallAsUtc(ms: number, timeZone: string): number {
  const p = Object.fromEntries(formatter(timeZone).formatToParts(new Date(ms)).map((part) => [part.type, Number(part.value)]));
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour! % 24, p.minute!);
}

/**
 * `2026-12-01 09:00` read in a zone → the ISO instant (`2026-12-01T08:00:00.000Z` in Europe/Paris);
 * undefined when the words are no such date and time. The service decides whether it is to come.
 */
export function instantOfLocal(words: string, timeZone: string): string | undefined {
  const m = WALL_TIME.exec(words.trim());
  if (!m) return undefined;
  const [year, month, day, hour, minute] = m.slice(1).map(Number) as [number, number, number, number, number];
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  const back = new Date(wall);
  if (back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day || hour > 23 || minute > 59) return undefined;
  // Two passes settle the offset across a daylight-saving change.
  let ms = wall - (wallAsUtc(wall, timeZone) - wall);
  ms = wall - (wallAsUtc(ms, timeZone) - ms);
  return new Date(ms).toISOString();
}
