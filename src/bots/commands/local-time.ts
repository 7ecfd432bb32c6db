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
