// Quiet hours in an account's own time zone, with the Intl API (no tz library): when a moment is
// inside them, and the instant they end. Wall-clock times are turned into instants through the
// zone's offset at that time, so daylight-saving changes move the instant, not the wall time.

export interface QuietHours {
  /** "HH:MM", local wall time; start after end means the span crosses midnight. */
  start: string;
  end: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Whether the runtime knows this IANA zone name. */
export function isTimeZone(name: string): boolean {
  try {
    formatter(name);
    return true;
  } catch {
    return false;
  }
}

interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function wallTime(timeZone: string, atMs: number): Wall {
  const parts = Object.fromEntries(formatter(timeZone).formatToParts(new Date(atMs)).map((p) => [p.type, p.value]));
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

/** The zone's offset from UTC at an instant, in ms (local minus UTC). */
function offsetAt(timeZone: string, atMs: number): number {
  const w = wallTime(timeZone, atMs);
  const wholeSecond = Math.floor(atMs / 1000) * 1000;
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - wholeSecond;
}

/**
 * The instant a local wall time names. A time skipped by a spring-forward change is read with the
 * offset before it (02:30 becomes 03:30 summer time); a repeated one is its first occurrence.
 */
function instantOf(timeZone: string, year: number, month: number, day: number, minutes: number): number {
  const asUtc = Date.UTC(year, month - 1, day, Math.floor(minutes / 60), minutes % 60);
  const first = asUtc - offsetAt(timeZone, asUtc);
  const settled = asUtc - offsetAt(timeZone, first);
  // Repeated hour: the earlier of the two readings that show this wall time.
  const earlier = asUtc - offsetAt(timeZone, first - 3_600_000);
  return earlier < settled && offsetAt(timeZone, earlier) === asUtc - earlier ? earlier : settled;
}

export const minutesOfDay = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * When the quiet hours that hold `atMs` end, as an instant (ms), or null when `atMs` is outside
 * them. Start and end equal would be a whole day or none: the input schema refuses it.
 */
export function quietHoursEnd(atMs: number, timeZone: string, quiet: QuietHours): number | null {
  const start = minutesOfDay(quiet.start);
  const end = minutesOfDay(quiet.end);
  const w = wallTime(timeZone, atMs);
  const now = w.hour * 60 + w.minute;
  const inside = start < end ? now >= start && now < end : now >= start || now < end;
  if (!inside) return null;
  // Before the end on the same local day, or (a span across midnight) on the next one.
  const next = now < end ? new Date(Date.UTC(w.year, w.month - 1, w.day)) : new Date(Date.UTC(w.year, w.month - 1, w.day + 1));
  const endMs = instantOf(timeZone, next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate(), end);
  return endMs > atMs ? endMs : null;
}

/**
 * The next top of a local hour strictly after `atMs` (hourly digests). Counted from the local
 * minute and second, so a zone half an hour off UTC gets its own :00, and a daylight-saving jump
 * (which happens on an hour) changes nothing.
 */
export function nextLocalHour(atMs: number, timeZone: string): number {
  const w = wallTime(timeZone, atMs);
  return atMs - (atMs % 1000) - (w.minute * 60 + w.second) * 1000 + 3_600_000;
}

/**
 * The next instant strictly after `atMs` whose local wall time is `hour`:00 (daily digests), with
 * the same reading of skipped and repeated times as the end of quiet hours.
 */
export function nextLocalTimeOfDay(atMs: number, timeZone: string, hour: number): number {
  const w = wallTime(timeZone, atMs);
  for (let days = 0; days <= 2; days++) {
    const day = new Date(Date.UTC(w.year, w.month - 1, w.day + days));
    const at = instantOf(timeZone, day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate(), hour * 60);
    if (at > atMs) return at;
  }
  throw new Error(`no local ${hour}:00 within two days of ${new Date(atMs).toISOString()} in ${timeZone}`);
}
