// The one time range of the events page and the dashboard: a rolling preset (`?range=24h`) or an absolute
// span (`?from=<ISO>&to=<ISO>`, instants with their offset). Pure, so the URL round trip is testable.

export const PRESETS = [
  { id: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { id: '1h', label: 'Last 1 hour', ms: 3_600_000 },
  { id: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { id: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
] as const;
export type PresetId = (typeof PRESETS)[number]['id'];

export type TimeRange = { kind: 'preset'; preset: PresetId } | { kind: 'absolute'; from: string; to: string };

const presetOf = (id: string) => PRESETS.find((p) => p.id === id);
const str = (v: unknown): string => (Array.isArray(v) ? str(v[0]) : typeof v === 'string' ? v : '');

/** An instant, or null. A bare date (`2026-11-24`, the old whole-day filter) is that day's local midnight. */
export function parseInstant(s: string): Date | null {
  if (!s) return null;
  const d = /^\d{4}-\d{2}-\d{2}$/.test(s) ? new Date(`${s}T00:00:00`) : new Date(s);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** The range a URL query names; `fallback` when it names none or an invalid one. */
export function rangeFromQuery(query: Record<string, unknown>, fallback: PresetId = '24h'): TimeRange {
  const preset = presetOf(str(query.range));
  if (preset) return { kind: 'preset', preset: preset.id };
  const from = parseInstant(str(query.from));
  let to = parseInstant(str(query.to));
  // A bare `to` date meant "through that day".
  if (to && /^\d{4}-\d{2}-\d{2}$/.test(str(query.to))) to = new Date(to.getTime() + 86_400_000);
  if (from && to && from < to) return { kind: 'absolute', from: from.toISOString(), to: to.toISOString() };
  return { kind: 'preset', preset: fallback };
}

/** Query parameters for a range (merge them into the page's other parameters). */
export function rangeToQuery(r: TimeRange): { range?: string; from?: string; to?: string } {
  return r.kind === 'preset' ? { range: r.preset } : { from: r.from, to: r.to };
}

/** The instants a range covers now: [from, to). */
export function resolveRange(r: TimeRange, now: number = Date.now()): { from: Date; to: Date } {
  if (r.kind === 'absolute') return { from: new Date(r.from), to: new Date(r.to) };
  const p = presetOf(r.preset) ?? PRESETS[2];
  return { from: new Date(now - p.ms), to: new Date(now) };
}

/** The browser's zone as an offset, e.g. `UTC+01:00` (times on screen are local). */
export function zoneLabel(at: Date = new Date()): string {
  const m = -at.getTimezoneOffset();
  const a = Math.abs(m);
  return `UTC${m >= 0 ? '+' : '-'}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

/** What the range shows in words, with the zone for an absolute one. */
export function describeRange(r: TimeRange): string {
  if (r.kind === 'preset') return (presetOf(r.preset) ?? PRESETS[2]).label;
  const f = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  return `${f(r.from)} – ${f(r.to)} (${zoneLabel(new Date(r.from))})`;
}
