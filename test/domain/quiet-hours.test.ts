import { describe, expect, it } from 'vitest';
import { isTimeZone, nextLocalHour, nextLocalTimeOfDay, quietHoursEnd } from '../../src/domain/quiet-hours.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

describe('quiet hours in a time zone', () => {
  const night = { start: '22:00', end: '07:00' };

  it('holds inside a span across midnight and answers when it ends, in the zone', () => {
    // Berlin in winter is UTC+1: 23:30 local is 22:30Z, the end 07:00 local is 06:00Z next day.
    expect(iso(quietHoursEnd(at('2026-01-15T22:30:00Z'), 'Europe/Berlin', night))).toBe('2026-01-16T06:00:00.000Z');
    // 03:00 local, after midnight: the end is the same local day.
    expect(iso(quietHoursEnd(at('2026-01-16T02:00:00Z'), 'Europe/Berlin', night))).toBe('2026-01-16T06:00:00.000Z');
    // 07:00 local is the end itself: outside; 21:59 local too.
    expect(quietHoursEnd(at('2026-01-16T06:00:00Z'), 'Europe/Berlin', night)).toBeNull();
    expect(quietHoursEnd(at('2026-01-16T20:59:00Z'), 'Europe/Berlin', night)).toBeNull();
  });

  it('holds inside a span within one day', () => {
    const lunch = { start: '12:00', end: '13:30' };
    expect(iso(quietHoursEnd(at('2026-06-01T16:15:00Z'), 'America/New_York', lunch))).toBe('2026-06-01T17:30:00.000Z');
    expect(quietHoursEnd(at('2026-06-01T17:30:00Z'), 'America/New_York', lunch)).toBeNull();
  });

  it('ends at the local wall time across a spring-forward change (the night is an hour shorter)', () => {
    // Europe/Berlin springs forward on 2026-03-29 at 02:00 → 03:00. Quiet from 22:00 (UTC+1) to
    // 07:00 (now UTC+2): 21:00Z to 05:00Z, eight hours.
    expect(iso(quietHoursEnd(at('2026-03-28T21:00:00Z'), 'Europe/Berlin', night))).toBe('2026-03-29T05:00:00.000Z');
    expect(iso(quietHoursEnd(at('2026-03-29T04:59:00Z'), 'Europe/Berlin', night))).toBe('2026-03-29T05:00:00.000Z');
    expect(quietHoursEnd(at('2026-03-29T05:00:00Z'), 'Europe/Berlin', night)).toBeNull();
    // An end inside the skipped hour (02:30) is read with the offset before it: 03:30 summer time.
    expect(iso(quietHoursEnd(at('2026-03-29T00:30:00Z'), 'Europe/Berlin', { start: '01:00', end: '02:30' }))).toBe('2026-03-29T01:30:00.000Z');
  });

  it('ends at the local wall time across a fall-back change (the night is an hour longer)', () => {
    // America/New_York falls back on 2026-11-01 at 02:00 → 01:00. 22:00 EDT (02:00Z) to 07:00 EST (12:00Z).
    expect(iso(quietHoursEnd(at('2026-11-01T02:00:00Z'), 'America/New_York', night))).toBe('2026-11-01T12:00:00.000Z');
    // Both readings of 01:30 are quiet and end at the same instant.
    expect(iso(quietHoursEnd(at('2026-11-01T05:30:00Z'), 'America/New_York', night))).toBe('2026-11-01T12:00:00.000Z');
    expect(iso(quietHoursEnd(at('2026-11-01T06:30:00Z'), 'America/New_York', night))).toBe('2026-11-01T12:00:00.000Z');
    expect(quietHoursEnd(at('2026-11-01T12:00:00Z'), 'America/New_York', night)).toBeNull();
  });

  it('knows IANA names and refuses others', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
  });
});

describe('digest times in a time zone', () => {
  it('an hourly digest is due at the next local top of the hour, also in a zone half an hour off UTC', () => {
    expect(iso(nextLocalHour(at('2026-01-15T10:20:30.500Z'), 'Europe/Berlin'))).toBe('2026-01-15T11:00:00.000Z');
    expect(iso(nextLocalHour(at('2026-01-15T11:00:00.000Z'), 'Europe/Berlin'))).toBe('2026-01-15T12:00:00.000Z');
    // India is UTC+5:30: its tops of the hour are at :30 UTC.
    expect(iso(nextLocalHour(at('2026-01-15T10:20:00Z'), 'Asia/Kolkata'))).toBe('2026-01-15T10:30:00.000Z');
    // 01:30 CET on the spring-forward night: the next top of the hour is 03:00 CEST, 30 minutes later.
    expect(iso(nextLocalHour(at('2026-03-29T00:30:00Z'), 'Europe/Berlin'))).toBe('2026-03-29T01:00:00.000Z');
  });

  it('a daily digest is due at the next local DIGEST_HOUR, at the wall time across daylight-saving changes', () => {
    expect(iso(nextLocalTimeOfDay(at('2026-01-15T06:00:00Z'), 'Europe/Berlin', 9))).toBe('2026-01-15T08:00:00.000Z');
    expect(iso(nextLocalTimeOfDay(at('2026-01-15T08:00:00Z'), 'Europe/Berlin', 9))).toBe('2026-01-16T08:00:00.000Z');
    // Written the evening before the spring-forward change (UTC+1), due at 09:00 summer time (UTC+2).
    expect(iso(nextLocalTimeOfDay(at('2026-03-28T20:00:00Z'), 'Europe/Berlin', 9))).toBe('2026-03-29T07:00:00.000Z');
    // And back in autumn: 09:00 is UTC+1 again on 25 October.
    expect(iso(nextLocalTimeOfDay(at('2026-10-24T20:00:00Z'), 'Europe/Berlin', 9))).toBe('2026-10-25T08:00:00.000Z');
    // A skipped wall time (02:00 in spring) is read with the offset before it: 03:00 CEST.
    expect(iso(nextLocalTimeOfDay(at('2026-03-28T20:00:00Z'), 'Europe/Berlin', 2))).toBe('2026-03-29T01:00:00.000Z');
  });
});
