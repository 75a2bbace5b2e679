// Typed readers over environment variables, for settings read outside loadConfig (a notification
// channel's defaults, core/src/notify/channels/). A wrong value throws ConfigError naming the variable.

/** A setting that cannot be used: names the variable, never a secret value. */
export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

export type EnvVars = Readonly<Record<string, string | undefined>>;

export interface EnvReader {
  /** The value, or `def` when unset or empty. */
  str(name: string, def: string): string;
  /** The value, or undefined when unset or empty. */
  optional(name: string): string | undefined;
  int(name: string, def: number, min: number, max?: number): number;
  bool(name: string, def: boolean): boolean;
  oneOf<T extends string>(name: string, allowed: readonly T[], def: T): T;
  /** A URL with one of `protocols` (e.g. 'https:'), or `def`. */
  url(name: string, def: string, protocols: string[]): string;
  /** A URL with one of `protocols`, or undefined when unset or empty. */
  optionalUrl(name: string, protocols: string[]): string | undefined;
  /** A comma list, items trimmed, empty ones dropped. */
  csv(name: string): string[];
  /** A comma list of URLs with one of `protocols`. */
  urls(name: string, protocols: string[]): string[];
}

function checkUrl(name: string, v: string, protocols: string[]): string {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new ConfigError(name, `not a valid URL: "${v}"`);
  }
  if (!protocols.includes(u.protocol))
    throw new ConfigError(name, `expected a ${protocols.join(' or ')} URL, got "${u.protocol}"`);
  return v;
}

export function envReader(env: EnvVars): EnvReader {
  const str = (name: string, def: string) => {
    const v = env[name];
    return v === undefined || v === '' ? def : v;
  };
  const csv = (name: string) =>
    str(name, '')
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  return {
    str,
    optional: (name) => env[name] || undefined,
    int(name, def, min, max = Number.MAX_SAFE_INTEGER) {
      const raw = env[name];
      if (raw === undefined || raw === '') return def;
      if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(name, `expected an integer, got "${raw}"`);
      const n = Number(raw);
      if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
      return n;
    },
    bool(name, def) {
      const raw = env[name];
      if (raw === undefined || raw === '') return def;
      if (/^(1|true|yes|on)$/i.test(raw)) return true;
      if (/^(0|false|no|off)$/i.test(raw)) return false;
      throw new ConfigError(name, `expected true or false, got "${raw}"`);
    },
    oneOf(name, allowed, def) {
      const v = str(name, def);
      if (!(allowed as readonly string[]).includes(v))
        throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${v}"`);
      return v as (typeof allowed)[number];
    },
    url: (name, def, protocols) => checkUrl(name, str(name, def), protocols),
    optionalUrl: (name, protocols) => (env[name] ? checkUrl(name, env[name], protocols) : undefined),
    csv,
    urls: (name, protocols) => csv(name).map((u) => checkUrl(name, u, protocols)),
  };
}
