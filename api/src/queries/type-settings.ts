// Per-type settings (core's event_type_settings loader) applied at READ time in ClickHouse: the
// severity override changes the severity every query shows and filters on, stored events included;
// a type whose `visible` is false is left out of events lists, dashboard figures, hosts and problems.
import { joinSql, sql, Sql } from '@watchpost/runtime';
import type { TypeSettings } from '@watchpost/core/type-settings';

export {
  loadTypeSettings,
  NO_TYPE_SETTINGS,
  effectiveSeverity,
  isHidden,
  type TypeSettings,
} from '@watchpost/core/type-settings';

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
  if (ts.hidden.size === 0) return sql`1`;
  return sql`${new Sql(typeCol)} NOT IN (${joinSql(
    [...ts.hidden].map((h) => sql`${h}`),
    ', ',
  )})`;
}
