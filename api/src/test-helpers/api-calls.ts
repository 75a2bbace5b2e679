// Requests the API's integration tests make alike through fastify's inject (no socket). Only the app's
// inject is needed, so the helpers take the app of any test harness; the assertions stay in the tests.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

type App = Pick<FastifyInstance, 'inject'>;

/** A JSON call to /api/v1 with a bearer token: its status and parsed body. */
export async function callApi(app: App, method: 'GET' | 'POST', path: string, token: string, payload?: unknown) {
  const r = await app.inject({
    method,
    url: `/api/v1${path}`,
    headers: { authorization: `Bearer ${token}` },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  // A 5xx body says nothing to the assertions; the log line is what explains the failing test.
  if (r.statusCode >= 500) console.log(path, r.body);
  // The tests read any field of any answer (as they do with inject's own json()).
  // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment
  return { status: r.statusCode, body: r.json() };
}

/**
 * An enrollment code issued by an admin (`codeBody` {} for the admin's own phone, or `{ user_id }`) and
 * a phone enrolled with it, as the mobile app does: both answers, for the test to check.
 */
export async function enrollPhone(app: App, adminHeaders: Record<string, string>, codeBody: object, name = 'phone') {
  const code = await app.inject({
    method: 'POST',
    url: '/api/v1/devices/enrollment-codes',
    headers: adminHeaders,
    payload: codeBody,
  });
  const enrolled = await app.inject({
    method: 'POST',
    url: '/api/v1/mobile/enroll',
    payload: { code: code.json<{ code: string }>().code, device_uuid: randomUUID(), name, platform: 'android' },
  });
  return { code, enrolled };
}
