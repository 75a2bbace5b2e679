// Per-type settings (table event_type_settings, edited by admins): a severity override and a
// visibility flag per event type. The one loader and the one severity rule for every role: correlate
// applies the override before its threshold, the stream and the API apply both at read time.
import type { Pool, PoolClient } from '@watchpost/runtime';
import { isSeverity, type Severity } from '@watchpost/schemas';

export interface TypeSettings {
  /** type -> severity used instead of the event's own */
  overrides: ReadonlyMap<string, Severity>;
  /** types left out of lists, figures and live counters */
  hidden: ReadonlySet<string>;
}

export const NO_TYPE_SETTINGS: TypeSettings = { overrides: new Map(), hidden: new Set() };

export async function loadTypeSettings(db: Pool | PoolClient): Promise<TypeSettings> {
  const { rows } = await db.query<{ type: string; severity_override: string | null; visible: boolean }>(
    'SELECT type, severity_override, visible FROM event_type_settings WHERE severity_override IS NOT NULL OR visible = false',
  );
  const overrides = new Map<string, Severity>();
  const hidden = new Set<string>();
  for (const r of rows) {
    if (isSeverity(r.severity_override)) overrides.set(r.type, r.severity_override);
    if (!r.visible) hidden.add(r.type);
  }
  return { overrides, hidden };
}

/** The settings re-read at most every ttlMs (hot paths: the stream processor, the API's reads). */
export function typeSettingsCache(db: Pool, ttlMs = 5000): () => Promise<TypeSettings> {
  let cached = NO_TYPE_SETTINGS;
  let loadedAt = -Infinity;
  return async () => {
    if (Date.now() - loadedAt < ttlMs) return cached;
    cached = await loadTypeSettings(db);
    loadedAt = Date.now();
    return cached;
  };
}

/** The severity after the per-type override; a value that is not a severity counts as info. */
export function effectiveSeverity(ts: TypeSettings, type: string, severity: string): Severity {
  return ts.overrides.get(type) ?? (isSeverity(severity) ? severity : 'info');
}

export function isHidden(ts: TypeSettings, type: string): boolean {
  return ts.hidden.has(type);
}
