import { describe, expect, it } from 'vitest';
import { ApiError, toErrorResponse } from './errors.ts';

describe('toErrorResponse', () => {
  it('keeps an ApiError’s status, code, message, details and headers', () => {
    const r = toErrorResponse(new ApiError(429, 'RATE_LIMITED', 'slow down', { retry_after: 5 }, { 'retry-after': '5' }));
    expect(r).toEqual({
      status: 429,
      body: { error: { code: 'RATE_LIMITED', message: 'slow down', details: { retry_after: 5 } } },
      headers: { 'retry-after': '5' },
    });
  });

  it('turns fastify validation errors into VALIDATION_FAILED with pointers', () => {
    const err = Object.assign(new Error('body/x must be integer'), {
      statusCode: 400,
      validationContext: 'body',
      validation: [{ instancePath: '/x', message: 'must be integer', params: {}, keyword: 'type', schemaPath: '#/x' }],
    });
    const r = toErrorResponse(err);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('VALIDATION_FAILED');
    expect(r.body.error.details).toEqual([{ in: 'body', pointer: '/x', message: 'must be integer' }]);
  });

  it.each([
    [new Error('syntax error at or near "hunter2" in SELECT'), 500],
    [Object.assign(new Error('relation "users" does not exist'), { statusCode: 503 }), 503],
    [Object.assign(new Error('SELECT * FROM secret'), { statusCode: 'x' }), 500],
  ])('hides the internals of a 5xx (%s)', (err, status) => {
    const r = toErrorResponse(err);
    expect(r.status).toBe(status);
    expect(JSON.stringify(r.body)).not.toMatch(/ECONNREFUSED|hunter2|relation|SELECT/);
    expect(r.body.error.message).toBe('internal error');
  });

  it('answers a store outage 503 with Retry-After, hiding its internals too', () => {
    const r = toErrorResponse(
      Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432 password=hunter2'), { code: 'ECONNREFUSED' }),
    );
    expect([r.status, r.body.error.code, r.headers['retry-after']]).toEqual([503, 'UNAVAILABLE', '5']);
    expect(JSON.stringify(r.body)).not.toMatch(/ECONNREFUSED|hunter2|10\.0\.0\.5/);
  });

  it.each([
    [413, 'PAYLOAD_TOO_LARGE'],
    [415, 'UNSUPPORTED_MEDIA_TYPE'],
    [400, 'BAD_REQUEST'],
    [404, 'NOT_FOUND'],
  ])('maps fastify’s own %i to %s', (status, code) => {
    const r = toErrorResponse(Object.assign(new Error('x'), { statusCode: status }));
    expect(r.status).toBe(status);
    expect(r.body.error.code).toBe(code);
  });
});
