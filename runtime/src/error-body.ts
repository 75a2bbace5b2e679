// The one JSON error shape of every HTTP service (ingest and api):
//   { "error": { "code": "STABLE_CODE", "message": "human text", "details"?: ... } }

export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

/** JSON Schema of the error body, referenced by every route's documented error responses. */
export const errorBodySchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', description: 'stable machine-readable code, e.g. UNAUTHENTICATED' },
        message: { type: 'string' },
        details: {},
      },
    },
  },
} as const;

export function errorBody(code: string, message: string, details?: unknown): ErrorBody {
  return details === undefined ? { error: { code, message } } : { error: { code, message, details } };
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
}
