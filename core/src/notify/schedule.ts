// When the daily report runs: local wall-clock HH:MM in an IANA time zone, DST-correct. A local time
// that does not exist on a spring-forward day runs at the same wall time after the jump (02:30 -> 03:30);
// one that happens twice on a fall-back day runs at its first occurrence.
const formatters = new Map<string, Intl.DateTimeFormat>();

function parts(instant: number, tz: string): { y: number; mo: number; d: number; h: number; mi: number; s: number } {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(tz, f);
  }
  const p = Object.fromEntries(f.formatToParts(new Date(instant)).map((x) => [x.type, x.value]));
  return { y: +p.year!, mo: +p.month!, d: +p.day!, h: +p.hour!, mi: +p.minute!, s: +p.second! };
}

/** Offset of the zone from UTC at an instant, in ms (positive east of Greenwich). */
function offsetMs(instant: number, tz: string): number {
  const p = parts(instant, tz);
  return Date.UTC(p.y, p.mo - 1, p.d, p.h, p.mi, p.s) - Math.floor(instant / 1000) * 1000;
}

/** The instant of local date y-mo-d at h:mi in the zone. */
export function zonedTime(y: number, mo: number, d: number, h: number, mi: number, tz: string): Date {
  const wall = Date.UTC(y, mo - 1, d, h, mi);
  // Two offsets around the wall time: the earlier candidate that maps back to the wall time wins
  // (first occurrence on a fall-back day); none maps back in a spring-forward gap.
  const o1 = offsetMs(wall - offsetMs(wall, tz), tz);
  const o2 = offsetMs(wall - 86_400_000, tz);
  const o3 = offsetMs(wall + 86_400_000, tz);
  const candidates = [...new Set([o1, o2, o3])].map((o) => wall - o).sort((a, b) => a - b);
  for (const c of candidates) {
    const p = parts(c, tz);
    if (p.y === y && p.mo === mo && p.d === d && p.h === h && p.mi === mi) return new Date(c);
  }
  // In the gap: the wall time read with the offset before the jump lands after it.
  return new Date(wall - Math.min(o2, o3));
}

/** The local calendar date (YYYY-MM-DD) of an instant in the zone. */
export function localDate(instant: Date, tz: string): string {
  const p = parts(instant.getTime(), tz);
  return `${p.y}-${String(p.mo).padStart(2, '0')}-${String(p.d).padStart(2, '0')}`;
}

/** The calendar date `days` after (or before) a YYYY-MM-DD date. */
export function shiftDate(day: string, days: number): string {
  const [y, mo, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, mo - 1, d + days)).toISOString().slice(0, 10);
}

/** The instant of `time` (HH:MM) local time in `tz` on the local date `day` (YYYY-MM-DD). */
export function dailyRunOn(day: string, time: string, tz: string): Date {
  const [y, mo, d] = day.split('-').map(Number) as [number, number, number];
  const [h, mi] = time.split(':').map(Number) as [number, number];
  return zonedTime(y, mo, d, h, mi, tz);
}

/** The first run strictly after `after`, at `time` (HH:MM) local time in `tz`. */
export function nextDailyRun(time: string, tz: string, after: Date): Date {
  const today = localDate(after, tz);
  for (let i = 0; i < 3; i++) {
    const t = dailyRunOn(shiftDate(today, i), time, tz);
    if (t.getTime() > after.getTime()) return t;
  }
  throw new Error(`no run of ${time} ${tz} after ${after.toISOString()}`);
}
