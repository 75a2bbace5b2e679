export function fmtTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  // With the zone (e.g. "CET", "GMT+1"): a time on screen names the clock it is read on.
  // (timeZoneName cannot be combined with dateStyle/timeStyle, hence the fields.)
  return d.toLocaleString(undefined, {
    year: '2-digit',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'short',
  });
}

export function fmtAgo(iso: string | null | undefined): string {
  if (!iso) return 'never';
  const s = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
  if (s < 60) return `${Math.max(s, 0)} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} d ago`;
}

export const fmtNum = (n: number | null | undefined) => (n ?? 0).toLocaleString();

/** One query value as a string (vue-router gives string | null | (string | null)[]). */
export function q(v: unknown): string {
  if (Array.isArray(v)) return typeof v[0] === 'string' ? v[0] : '';
  return typeof v === 'string' ? v : '';
}

export function qInt(v: unknown, dflt: number): number {
  const n = Number(q(v));
  return Number.isInteger(n) && n > 0 ? n : dflt;
}

/** Query without empty values, so URLs stay short and comparable. */
export function cleanQuery(o: Record<string, string | number | undefined | null>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== null && v !== '') out[k] = String(v);
  return out;
}
