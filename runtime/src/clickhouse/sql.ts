// ClickHouse 18.16 has no server-side query parameters, so every value reaches SQL through this one
// helper. Strings are quoted with the escapes ClickHouse's lexer understands; nothing else is trusted.

export type SqlValue = string | number | bigint | boolean | Date | null | readonly SqlValue[];

/** A fragment of SQL that is already safe (built by `sql` or `ident`). */
export class Sql {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

const STRING_ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  "'": "\\'",
  '\0': '\\0',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

export function quoteString(s: string): string {
  return `'${s.replace(/[\\'\0\n\r\t\b\f]/g, (c) => STRING_ESCAPES[c]!)}'`;
}

/** DateTime literal in UTC, second precision (what the DateTime columns hold). */
export function formatDateTime(d: Date): string {
  if (Number.isNaN(d.getTime())) throw new TypeError('invalid Date bound into SQL');
  return d.toISOString().slice(0, 19).replace('T', ' ');
}

export function literal(v: SqlValue): string {
  if (v === null) return 'NULL';
  if (typeof v === 'string') return quoteString(v);
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new TypeError(`non-finite number bound into SQL: ${v}`);
    return String(v);
  }
  if (v instanceof Date) return `toDateTime(${quoteString(formatDateTime(v))}, 'UTC')`;
  if (Array.isArray(v)) return `[${v.map(literal).join(', ')}]`;
  throw new TypeError(`unsupported SQL value: ${typeof v}`);
}

/** An identifier (table, column, database) from config; only plain names are allowed. */
export function ident(name: string): Sql {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new TypeError(`unsafe SQL identifier: ${JSON.stringify(name)}`);
  return new Sql(name);
}

/** Tagged template: sql`SELECT * FROM events WHERE hostname = ${h}` binds h as a literal. */
export function sql(strings: TemplateStringsArray, ...values: (SqlValue | Sql)[]): Sql {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += (v instanceof Sql ? v.text : literal(v)) + strings[i + 1]!;
  });
  return new Sql(out);
}

/** Joins safe fragments, e.g. WHERE conditions. */
export function joinSql(parts: Sql[], separator: string): Sql {
  return new Sql(parts.map((p) => p.text).join(separator));
}
