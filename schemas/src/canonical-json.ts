// One text per JSON value whatever order its object keys came in: hashes and comparisons of what an
// agent sent must not depend on the order its language enumerated a hashtable (PowerShell's @{} has none).

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** JSON with object keys sorted at every depth (arrays keep their order; undefined becomes null). */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isPlainObject(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}
