// The events list's date range: `from` and `to` are both inclusive. Each is an ISO 8601 date
// (YYYY-MM-DD, a whole UTC day) or date-time with offset. Stored times have second precision, so a
// date-time `to` includes its whole second.

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

export class DateRangeError extends Error {}

function parse(name: string, v: string): { at: Date; dateOnly: boolean } {
  const dateOnly = DATE_ONLY.test(v);
  const at = new Date(dateOnly ? `${v}T00:00:00Z` : v);
  if (Number.isNaN(at.getTime()) || (!dateOnly && !/^\d{4}-\d{2}-\d{2}T/.test(v))) {
    throw new DateRangeError(`${name}: expected an ISO 8601 date or date-time, got "${v}"`);
  }
  return { at, dateOnly };
}

/** [from, toExclusive) for the query, from the inclusive bounds of the request. */
export function dateRange(from?: string, to?: string): { from?: Date; toExclusive?: Date } {
  const out: { from?: Date; toExclusive?: Date } = {};
  if (from !== undefined) out.from = new Date(Math.floor(parse('from', from).at.getTime() / 1000) * 1000);
  if (to !== undefined) {
    const t = parse('to', to);
    out.toExclusive = t.dateOnly ? new Date(t.at.getTime() + DAY_MS) : new Date(Math.floor(t.at.getTime() / 1000) * 1000 + 1000);
  }
  if (out.from && out.toExclusive && out.from >= out.toExclusive) throw new DateRangeError('from must not be after to');
  return out;
}

/** "high,critical" -> ['high', 'critical'] (the route schema already checked the names). */
export function splitList<T extends string>(v: string | undefined): T[] | undefined {
  if (v === undefined) return undefined;
  const items = [
    ...new Set(
      v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    ),
  ];
  return items.length ? (items as T[]) : undefined;
}
