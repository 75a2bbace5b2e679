// Per-type settings (event_type_settings, edited by admins) applied at READ time: the severity
// override changes the severity every query shows and filters on, stored events included; a type
// whose `visible` is false is left out of events lists, dashboard figures, hosts and problems.
import type { Pool } from '@watchpost/runtime/clients/postgres.ts';
import { joinSql, sql, Sql } from '@watchpost/runtime/clickhouse/sql.ts';
import { SEVERITIES, type Severity } from '@watchpost/runtime/config/config.ts';

export interface TypeSettings {
  /** type -> severity shown instead of the stored one */
  overrides: ReadonlyMap<string, Severity>;
  /** types left out of lists and figures */
  hidden: readonly string[];
}

export const NO_TYPE_SETTINGS: TypeSettings = { overrides: new Map(), hidden: [] };

export async function loadTypeSettings(pg: Pool): Promise<TypeSettings> {
  const { rows } = await pg.query<{ type: string; severity_override: string | null; visible: boolean }>(
    'SELECT type, severity_override, visible FROM event_type_settings WHERE severity_override IS NOT NULL OR visible = false',
  );
  const overrides = new Map<string, Severity>();
  const hidden: string[] = [];
  for (const r of rows) {
    if (r.severity_override && (SEVERITIES as readonly string[]).includes(r.severity_override))
      overrides.set(r.type, r.severity_override as Severity);
    if (!r.visible) hidden.push(r.type);
  }
  return { overrides, hidden };
}

/** ClickHouse expression of the severity after the override (`severity` when none is set). */
export function effectiveSeveritySql(ts: TypeSettings, typeCol = 'type', severityCol = 'severity'): Sql {
  const t = new Sql(typeCol);
  const s = new Sql(severityCol);
  if (ts.overrides.size === 0) return s;
  const types = [...ts.overrides.keys()];
  const values = types.map((k) => ts.overrides.get(k)!);
  return sql`transform(${t}, ${types}, ${values}, ${s})`;
}

/** ClickHouse condition leaving hidden types out (`1` when none is hidden). */
export function visibleTypeSql(ts: TypeSettings, typeCol = 'type'): Sql {
  if (ts.hidden.length === 0) return sql`1`;
  return sql`${new Sql(typeCol)} NOT IN (${joinSql(
    ts.hidden.map((h) => sql`${h}`),
    ', ',
  )})`;
}

/** The same severity rule in JS (for rows read from Postgres or one event by id). */
export function effectiveSeverity(ts: TypeSettings, type: string, stored: string): string {
  return ts.overrides.get(type) ?? stored;
}

export function isHidden(ts: TypeSettings, type: string): boolean {
  return ts.hidden.includes(type);
}
