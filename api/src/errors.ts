// One error shape for every API response that is not a success:
//   { "error": { "code": "STABLE_CODE", "message": "human text", "details"?: ... } }
// Codes are stable (clients switch on them); messages are for people and may change.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

export const ERROR_CODES = {
  VALIDATION_FAILED: 400,
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_CODES | (string & {});

export class ApiError extends Error {
  readonly statusCode: number;
  readonly code: ErrorCode;
  readonly details: unknown;
  /** Extra response headers, e.g. Retry-After on 429 or WWW-Authenticate on 401. */
  readonly headers: Record<string, string>;

  constructor(statusCode: number, code: ErrorCode, message: string, details?: unknown, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.statusCode = statusCode;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

export const unauthenticated = (message = 'missing or invalid credentials') =>
  new ApiError(401, 'UNAUTHENTICATED', message, undefined, { 'www-authenticate': 'Bearer' });
export const forbidden = (message = 'your role does not allow this operation') => new ApiError(403, 'FORBIDDEN', message);
export const notFound = (what = 'resource') => new ApiError(404, 'NOT_FOUND', `${what} not found`);

/** The value a route loaded by id, or the 404 naming `what` when there is none. */
export function orNotFound<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw notFound(what);
  return value;
}

import { errorBody, isDataError, isTransientError, type ErrorBody } from '@watchpost/runtime';

/** Seconds a client is asked to wait after a 503 caused by a store outage. */
export const RETRY_AFTER_SECONDS = 5;

export { errorBodySchema, type ErrorBody } from '@watchpost/runtime';

const codeForStatus = (status: number): string => {
  if (status === 400) return 'BAD_REQUEST';
  for (const [code, s] of Object.entries(ERROR_CODES)) if (s === status && code !== 'VALIDATION_FAILED') return code;
  return status >= 500 ? 'INTERNAL' : 'BAD_REQUEST';
};

/** Maps any thrown error to the error shape. 5xx bodies carry no internals; the log has them. */
export function toErrorResponse(err: unknown): { status: number; body: ErrorBody; headers: Record<string, string> } {
  if (err instanceof ApiError) {
    return { status: err.statusCode, body: errorBody(err.code, err.message, err.details), headers: err.headers };
  }
  const fe = err as Partial<FastifyError>;
  if (fe && Array.isArray(fe.validation)) {
    const where = fe.validationContext ?? 'request';
    const details = fe.validation.map((v) => ({
      in: where,
      pointer: v.instancePath || '/',
      message: v.message ?? 'invalid',
      ...(v.params && 'missingProperty' in v.params ? { property: String(v.params.missingProperty) } : {}),
      ...(v.params && 'additionalProperty' in v.params ? { property: String(v.params.additionalProperty) } : {}),
    }));
    return { status: 400, body: { error: { code: 'VALIDATION_FAILED', message: `invalid ${where}`, details } }, headers: {} };
  }
  if (typeof fe?.statusCode !== 'number') {
    // A store that is down, hanging or overloaded: 503 with a hint when to come back, never a 500.
    if (isTransientError(err))
      return {
        status: 503,
        body: errorBody('UNAVAILABLE', 'a store the service depends on is unavailable; try again shortly'),
        headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
      };
    // A value the store refuses (an id beyond its range, a date it cannot hold): the request's fault.
    if (isDataError(err))
      return { status: 400, body: errorBody('BAD_REQUEST', 'a value in the request is out of range'), headers: {} };
  }
  const status = typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 600 ? fe.statusCode : 500;
  if (status >= 500) {
    return {
      status,
      body: { error: { code: status === 503 ? 'UNAVAILABLE' : 'INTERNAL', message: 'internal error' } },
      headers: {},
    };
  }
  // fastify's own 4xx (bad JSON, body too large, wrong content type): their messages are safe to show.
  return { status, body: { error: { code: codeForStatus(status), message: fe?.message ?? 'bad request' } }, headers: {} };
}

export function errorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const { status, body, headers } = toErrorResponse(err);
  if (status >= 500) req.log.error({ err }, 'request failed');
  else req.log.info({ code: body.error.code, status }, 'request refused');
  void reply.code(status).headers(headers).type('application/json; charset=utf-8').send(body);
}
