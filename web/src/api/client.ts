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
  // A schema failure names the field (api/src/errors.ts details): "invalid body" alone helps nobody.
  if (e.code === 'VALIDATION_FAILED' && Array.isArray(e.details) && e.details.length > 0) {
    const parts = (e.details as ValidationDetail[]).slice(0, 3).map(validationPart);
    const more = e.details.length > 3 ? ` (and ${e.details.length - 3} more)` : '';
    return `${e.message}: ${parts.join('; ')}${more}`;
  }
  return e.message;
}

interface ValidationDetail {
  pointer?: string;
  property?: string;
  message?: string;
}

function validationPart(d: ValidationDetail): string {
  const path = (d.pointer ?? '/').replace(/^\//, '').replace(/\//g, '.');
  const msg = d.message ?? 'is invalid';
  const text = path ? `${path} ${msg}` : msg;
  return d.property && !msg.includes(d.property) ? `${text}: ${d.property}` : text;
}

export function errorCode(error: unknown): string | undefined {
  return (error as Partial<ApiErrorBody> | undefined)?.error?.code;
}

export type ActionRecord = Ok<'getActionsId'>;
