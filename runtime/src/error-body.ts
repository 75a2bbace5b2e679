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
