// The typed API client (openapi-fetch over the generated contract in schema.d.ts). The access token
// lives only in memory here; the refresh token is an httpOnly cookie the page never sees. A 401 on an
// API call triggers one cookie refresh (shared by concurrent callers) and one retry.
import createClient, { type Middleware } from 'openapi-fetch';
import type { operations, paths } from './schema';

export type Op = keyof operations;
type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : never;
/** The JSON body of an operation's success answer. */
export type Ok<K extends Op, S extends number = 200> = operations[K]['responses'] extends Record<S, infer R> ? JsonOf<R> : never;

export type Summary = Ok<'getDashboardSummary'>;
export type EventRow = Ok<'listEvents'>['items'][number];
export type EventDetail = Ok<'getEvent'>;
export type HostRow = Ok<'listHosts'>['items'][number];
export type HostDetail = Ok<'getHost'>;
export type ProblemRow = Ok<'listProblems'>['items'][number];
export type ProblemDetail = Ok<'getProblem'>;
export type UserRow = Ok<'listUsers'>['items'][number];
export type ApiKeyRow = Ok<'listApiKeys'>['items'][number];
export type AuditRow = Ok<'listAuditLog'>['items'][number];
export type DeviceRow = Ok<'listDevices'>['items'][number];
export type TypeSetting = Ok<'listEventTypeSettings'>['items'][number];
export type Me = Ok<'getMe'>;
export type Severity = EventRow['severity'];
export const SEVERITIES: Severity[] = ['info', 'warning', 'high', 'critical'];

export interface ApiErrorBody {
  error: { code: string; message: string; details?: unknown };
}

let accessToken: string | null = null;
let onSessionLost: () => void = () => {};

export function setAccessToken(token: string | null): void {
  accessToken = token;
}
export function getAccessToken(): string | null {
  return accessToken;
}
export function onSessionEnded(fn: () => void): void {
  onSessionLost = fn;
}

let refreshing: Promise<boolean> | null = null;

/** Exchanges the refresh cookie for a new access token (and a rotated cookie). */
export function refreshSession(): Promise<boolean> {
  refreshing ??= (async () => {
    try {
      const res = await fetch('/api/v1/auth/refresh', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
        credentials: 'same-origin',
      });
      if (!res.ok) return false;
      const body = (await res.json()) as { access_token: string };
      setAccessToken(body.access_token);
      return true;
    } catch {
      return false;
    } finally {
      setTimeout(() => (refreshing = null), 0);
    }
  })();
  return refreshing;
}

const retryCopies = new Map<string, Request>();

const auth: Middleware = {
  onRequest({ request, id }) {
    if (accessToken) request.headers.set('authorization', `Bearer ${accessToken}`);
    if (!request.url.includes('/api/v1/auth/')) retryCopies.set(id, request.clone());
    return request;
  },
  async onResponse({ response, id }) {
    const copy = retryCopies.get(id);
    retryCopies.delete(id);
    if (response.status !== 401 || !copy) return response;
    if (!(await refreshSession())) {
      setAccessToken(null);
      onSessionLost();
      return response;
    }
    copy.headers.set('authorization', `Bearer ${accessToken}`);
    return fetch(copy);
  },
  onError({ id }) {
    retryCopies.delete(id);
  },
};

export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });
api.use(auth);

/** A human sentence for a failed call. */
export function errorText(error: unknown, fallback = 'The request failed'): string {
  const e = (error as Partial<ApiErrorBody> | undefined)?.error;
  if (!e || typeof e.message !== 'string') return fallback;
  // A schema failure names the field (api/src/errors.ts details) in words: "Port: must be at most
  // 65535", not "invalid body: port must be <= 65535".
  if (e.code === 'VALIDATION_FAILED' && Array.isArray(e.details) && e.details.length > 0) {
    const parts = (e.details as ValidationDetail[]).slice(0, 3).map(validationPart);
    const more = e.details.length > 3 ? ` (and ${e.details.length - 3} more)` : '';
    return `${parts.join('; ')}${more}`;
  }
  return e.message;
}

interface ValidationDetail {
  pointer?: string;
  property?: string;
  message?: string;
}

const WORDS: Record<string, string> = {
  url: 'URL',
  uri: 'URL',
  ip: 'IP',
  id: 'ID',
  tls: 'TLS',
  smtp: 'SMTP',
  ssh: 'SSH',
  winrm: 'WinRM',
  http: 'HTTP',
  https: 'HTTPS',
};

/** `/webhook/destinations/0/url` -> "Webhook destinations item 1 URL"; a missing or unknown field's own name comes last. */
export function fieldLabel(pointer: string | undefined, property?: string): string {
  const segments = (pointer ?? '/').split('/').filter(Boolean);
  if (property) segments.push(property);
  const words = segments.map((seg) =>
    /^\d+$/.test(seg)
      ? `item ${Number(seg) + 1}`
      : seg
          .split(/[_-]/)
          .map((w) => WORDS[w.toLowerCase()] ?? w)
          .join(' '),
  );
  const text = words.join(' ');
  return text ? text.charAt(0).toUpperCase() + text.slice(1) : '';
}

const FORMATS: Record<string, string> = {
  uri: 'a full URL (https://…)',
  email: 'an e-mail address',
  'date-time': 'a date and time',
  date: 'a date',
  uuid: 'a UUID',
  ipv4: 'an IPv4 address',
  hostname: 'a host name',
};

/** ajv's message (fastify's validator) in plain words. */
export function validationWords(message: string): string {
  let m: RegExpMatchArray | null;
  if ((m = message.match(/^must be (<=|>=|<|>) (-?[\d.]+)$/))) {
    const [, op, n] = m;
    const words: Record<string, string> = { '<=': 'at most', '>=': 'at least', '<': 'less than', '>': 'more than' };
    return `must be ${words[op!]} ${n}`;
  }
  if ((m = message.match(/^must NOT have (fewer|more) than (\d+) (characters|items|properties)$/))) {
    const [, dir, n, what] = m;
    return `must have ${dir === 'fewer' ? 'at least' : 'at most'} ${n} ${Number(n) === 1 ? what!.replace(/s$/, '').replace(/ie$/, 'y') : what}`;
  }
  if ((m = message.match(/^must be (integer|number|string|boolean|array|object|null)(,.*)?$/))) {
    const kinds: Record<string, string> = {
      integer: 'a whole number',
      number: 'a number',
      string: 'text',
      boolean: 'on or off',
      array: 'a list',
      object: 'a set of fields',
      null: 'empty',
    };
    return `must be ${kinds[m[1]!]}`;
  }
  if ((m = message.match(/^must match format "([^"]+)"$/))) return `must be ${FORMATS[m[1]!] ?? `in the ${m[1]} format`}`;
  if (/^must match pattern/.test(message)) return 'is not in the expected form';
  if (/^must have required property/.test(message)) return 'is required';
  if (/^must NOT have additional properties$/.test(message)) return 'is not a known field';
  if (/^must be equal to one of the allowed values$/.test(message)) return 'is not one of the allowed values';
  if (/^must NOT have duplicate items/.test(message)) return 'must not list the same value twice';
  return message;
}

function validationPart(d: ValidationDetail): string {
  const label = fieldLabel(d.pointer, d.property);
  const words = validationWords(d.message ?? 'is invalid');
  return label ? `${label}: ${words}` : words.charAt(0).toUpperCase() + words.slice(1);
}

export function errorCode(error: unknown): string | undefined {
  return (error as Partial<ApiErrorBody> | undefined)?.error?.code;
}

export type ActionRecord = Ok<'getActionsId'>;
