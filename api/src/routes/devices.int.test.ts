// Mobile devices on the real stores: enrollment codes (expired, reused, guessed, rate-limited under
// concurrency), device tokens checked per request with the user's role, re-enrollment reusing the
// record, revoke and delete taking effect on the next request, refresh reuse revoking the family,
// push subscription registration.
import { createECDH, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushTargets } from '@watchpost/core';
import { addUser, createApiHarness, login, type ApiHarness } from '@watchpost/testkit/api';

let h: ApiHarness;
let admin: Record<string, string>;
let monitorId = 0;
const ADDRESS = '203.0.113.50';

beforeAll(async () => {
  h = await createApiHarness('api_devices');
  const a = await addUser(h, 'root', 'admin');
  monitorId = (await addUser(h, 'watcher', 'monitor')).id;
  admin = { authorization: `Bearer ${(await login(h, a.username, a.password)).json().access_token}` };
});
afterAll(async () => h?.close());

const call = (
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  headers: Record<string, string> = {},
  payload?: unknown,
  remoteAddress = '127.0.0.1',
) =>
  h.app.inject({
    method,
    url: `/api/v1${url}`,
    headers,
    remoteAddress,
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
/** What PushSubscription.toJSON() gives a real browser: a P-256 point and a 16-byte secret. */
const pushKeys = () => {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
};

async function code(userId?: number): Promise<string> {
  const r = await call('POST', '/devices/enrollment-codes', admin, userId ? { user_id: userId } : {});
  expect(r.statusCode).toBe(201);
  return r.json().code as string;
}
const enroll = (c: string, uuid: string, address = '127.0.0.1') =>
  call('POST', '/mobile/enroll', {}, { code: c, device_uuid: uuid, name: 'Pixel', platform: 'android' }, address);

describe('enrollment', () => {
  it('a code is short, single use, and enrolls a device acting with its user role', async () => {
    const c = await code(monitorId);
    expect(c).toMatch(/^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$/);
    const uuid = randomUUID();
    const r = await enroll(c.toLowerCase().replace('-', ''), uuid); // typed in lower case without the dash
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body.device).toMatchObject({
      device_uuid: uuid,
      username: 'watcher',
      role: 'monitor',
      status: 'active',
      enroll_count: 1,
    });
    expect((await call('GET', '/events', bearer(body.access_token))).statusCode).toBe(200);
    expect((await call('GET', '/dashboards/summary', bearer(body.access_token))).statusCode).toBe(200);
    expect((await call('GET', '/users', bearer(body.access_token))).statusCode).toBe(403); // a monitor's device
    expect((await call('GET', '/mobile/device', bearer(body.access_token))).json()).toMatchObject({ device_uuid: uuid });
    // used
    expect((await enroll(c, randomUUID())).json().error.code).toBe('INVALID_CODE');
    const stored = await h.deps.pg.query('SELECT * FROM enrollment_codes');
    expect(JSON.stringify(stored.rows)).not.toContain(c.replace('-', ''));
    expect(JSON.stringify(stored.rows)).not.toContain(c);
  });

  it('an expired or guessed code is refused; guesses are limited like logins, also when sent at once', async () => {
    const c = await code();
    await h.deps.pg.query(`UPDATE enrollment_codes SET expires_at = now() - interval '1 second' WHERE used_at IS NULL`);
    expect((await enroll(c, randomUUID())).statusCode).toBe(401);
    const uuid = randomUUID();
    const attempts = await Promise.all(Array.from({ length: 20 }, () => enroll('ZZZZZ-ZZZZZ', uuid, ADDRESS)));
    const statuses = attempts.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(3);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(17);
    const limited = attempts.find((r) => r.statusCode === 429)!;
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // even the right code is refused for this device and address while locked
    expect((await enroll(await code(), uuid, ADDRESS)).statusCode).toBe(429);
    // on-call hears of the guessing once, like of a login lockout
    const alerts = (await h.deps.notifications.getJobs(['waiting', 'delayed', 'active', 'completed'])).filter(
      (j) => j.data.username === `device:${uuid}`,
    );
    expect(alerts.map((j) => j.data)).toEqual([
      expect.objectContaining({ kind: 'login_rate_limited', channel: 'chat', address: ADDRESS }),
    ]);
    expect(
      (
        await call(
          'POST',
          '/devices/enrollment-codes',
          bearer((await enroll(await code(monitorId), randomUUID())).json().access_token),
        )
      ).statusCode,
    ).toBe(403);
  });

  it('re-enrolling the same device UUID reuses its record; the old tokens and subscriptions are gone', async () => {
    const uuid = randomUUID();
    const first = (await enroll(await code(), uuid)).json();
    const sub = { endpoint: 'https://push.example.org/send/old-install', keys: pushKeys() };
    expect((await call('POST', '/mobile/push-subscriptions', bearer(first.access_token), sub)).statusCode).toBe(201);
    const second = (await enroll(await code(), uuid)).json();
    expect(second.device.id).toBe(first.device.id);
    expect(second.device.enroll_count).toBe(2);
    expect(second.device.push_subscriptions).toBe(0);
    expect((await call('GET', '/events', bearer(first.access_token))).statusCode).toBe(401);
    expect((await call('POST', '/auth/refresh', {}, { refresh_token: first.refresh_token })).statusCode).toBe(401);
    expect((await call('GET', '/events', bearer(second.access_token))).statusCode).toBe(200);
    const devices = (await call('GET', '/devices', admin))
      .json()
      .items.filter((d: { device_uuid: string }) => d.device_uuid === uuid);
    expect(devices).toHaveLength(1);
    // a UUID enrolled for one user cannot be taken over with another user's code, which stays usable
    const other = await code(monitorId);
    expect((await enroll(other, uuid)).statusCode).toBe(401);
    expect((await enroll(other, randomUUID())).statusCode).toBe(200);
  });

  it('two first enrollments of one new device UUID at once: one record, both answered', async () => {
    const uuid = randomUUID();
    const [a, b] = await Promise.all([enroll(await code(), uuid), enroll(await code(), uuid)]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect(a.json().device.id).toBe(b.json().device.id);
    expect([a.json().device.enroll_count, b.json().device.enroll_count].sort()).toEqual([1, 2]);
  });

  it('refresh rotates; presenting a spent refresh token revokes the device session and its pushes', async () => {
    const e = (await enroll(await code(), randomUUID())).json();
    const sub = { endpoint: `https://push.example.org/send/${e.device.id}`, keys: pushKeys() };
    expect((await call('POST', '/mobile/push-subscriptions', bearer(e.access_token), sub)).statusCode).toBe(201);
    const pushed = async () => (await pushTargets(h.deps.pg)).some((t) => t.device_id === e.device.id);
    const status = async () =>
      (await call('GET', '/devices', admin)).json().items.find((d: { id: number }) => d.id === e.device.id)?.status;
    expect(await pushed()).toBe(true);
    expect(await status()).toBe('active');
    const r1 = await call('POST', '/auth/refresh', {}, { refresh_token: e.refresh_token });
    expect(r1.statusCode).toBe(200);
    const next = r1.json();
    expect((await call('GET', '/events', bearer(next.access_token))).statusCode).toBe(200);
    expect((await call('POST', '/auth/refresh', {}, { refresh_token: e.refresh_token })).statusCode).toBe(401);
    expect((await call('GET', '/events', bearer(next.access_token))).statusCode).toBe(401);
    expect((await call('POST', '/auth/refresh', {}, { refresh_token: next.refresh_token })).statusCode).toBe(401);
    // a stolen refresh token was replayed: the phone no longer receives event details by push
    expect(await pushed()).toBe(false);
    expect(await status()).toBe('signed_out');
  });
});

describe('revoke and delete', () => {
  it('revoke: refused on the next request, record kept as revoked; delete: the record and its tokens gone', async () => {
    const e = (await enroll(await code(), randomUUID())).json();
    const sub = { endpoint: 'https://push.example.org/send/abc', keys: pushKeys() };
    expect((await call('POST', '/mobile/push-subscriptions', bearer(e.access_token), sub)).statusCode).toBe(201);
    const rv = await call('POST', `/devices/${e.device.id}/revoke`, admin);
    expect(rv.json()).toMatchObject({ status: 'revoked', revoked_by: 'root', push_subscriptions: 0 });
    expect((await call('GET', '/events', bearer(e.access_token))).statusCode).toBe(401);
    expect((await call('POST', '/auth/refresh', {}, { refresh_token: e.refresh_token })).statusCode).toBe(401);

    const d = (await enroll(await code(), randomUUID())).json();
    const dsub = { endpoint: 'https://push.example.org/send/del', keys: pushKeys() };
    expect((await call('POST', '/mobile/push-subscriptions', bearer(d.access_token), dsub)).statusCode).toBe(201);
    expect((await call('DELETE', `/devices/${d.device.id}`, admin)).statusCode).toBe(204);
    expect((await h.deps.pg.query('SELECT 1 FROM push_subscriptions WHERE device_id = $1', [d.device.id])).rows).toHaveLength(0);
    expect((await call('GET', '/events', bearer(d.access_token))).statusCode).toBe(401);
    expect((await h.deps.pg.query('SELECT 1 FROM refresh_tokens WHERE device_id = $1', [d.device.id])).rows).toHaveLength(0);
    expect((await call('POST', '/auth/refresh', {}, { refresh_token: d.refresh_token })).statusCode).toBe(401);
    expect((await call('DELETE', `/devices/${d.device.id}`, admin)).statusCode).toBe(404);
    const audit = await h.deps.pg.query<{ action: string }>(`SELECT action FROM audit_log WHERE action LIKE 'device.%'`);
    expect(new Set(audit.rows.map((r) => r.action))).toEqual(
      new Set([
        'device.code_issue',
        'device.enroll',
        'device.enroll_refused',
        'device.reenroll',
        'device.revoke',
        'device.delete',
      ]),
    );
  });

  it('an inactive user’s device is refused', async () => {
    const u = await addUser(h, 'leaver', 'monitor');
    const e = (await enroll(await code(u.id), randomUUID())).json();
    expect((await call('GET', '/events', bearer(e.access_token))).statusCode).toBe(200);
    await h.deps.pg.query('UPDATE users SET active = false WHERE id = $1', [u.id]);
    expect((await call('GET', '/events', bearer(e.access_token))).statusCode).toBe(401);
  });
});

describe('push subscriptions', () => {
  it('need a device session; the VAPID public key is readable', async () => {
    const e = (await enroll(await code(), randomUUID())).json();
    const key = (await call('GET', '/mobile/push/vapid-public-key', bearer(e.access_token))).json().public_key as string;
    expect(Buffer.from(key, 'base64url')).toHaveLength(65);
    const sub = { endpoint: 'https://push.example.org/send/xyz', keys: pushKeys() };
    expect((await call('POST', '/mobile/push-subscriptions', admin, sub)).json().error.code).toBe('NOT_A_DEVICE');
    expect(
      (await call('POST', '/mobile/push-subscriptions', bearer(e.access_token), { ...sub, endpoint: 'http://169.254.169.254/' }))
        .statusCode,
    ).toBe(400);
    expect((await call('POST', '/mobile/push-subscriptions', bearer(e.access_token), sub)).statusCode).toBe(201);
    const list = (await call('GET', '/devices', admin)).json().items.find((d: { id: number }) => d.id === e.device.id);
    expect(list.push_subscriptions).toBe(1);
    expect(
      (await call('DELETE', '/mobile/push-subscriptions', bearer(e.access_token), { endpoint: sub.endpoint })).statusCode,
    ).toBe(204);
  });

  it('keys that cannot encrypt are refused with the reason; another device cannot take over or remove an endpoint', async () => {
    const a = (await enroll(await code(), randomUUID())).json();
    const b = (await enroll(await code(), randomUUID())).json();
    const endpoint = `https://push.example.org/send/${randomUUID()}`;
    const notOnCurve = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)]).toString('base64url');
    const bad = await call('POST', '/mobile/push-subscriptions', bearer(a.access_token), {
      endpoint,
      keys: { ...pushKeys(), p256dh: notOnCurve },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toMatch(/not a point on the P-256 curve/);
    const shortAuth = await call('POST', '/mobile/push-subscriptions', bearer(a.access_token), {
      endpoint,
      keys: { ...pushKeys(), auth: randomBytes(12).toString('base64url') },
    });
    expect(shortAuth.json().error.message).toMatch(/keys.auth must be 16 bytes/);

    const keys = pushKeys();
    expect((await call('POST', '/mobile/push-subscriptions', bearer(a.access_token), { endpoint, keys })).statusCode).toBe(201);
    const taken = await call('POST', '/mobile/push-subscriptions', bearer(b.access_token), { endpoint, keys: pushKeys() });
    expect(taken.statusCode).toBe(409);
    expect((await call('DELETE', '/mobile/push-subscriptions', bearer(b.access_token), { endpoint })).statusCode).toBe(404);
    const row = await h.deps.pg.query('SELECT device_id, p256dh FROM push_subscriptions WHERE endpoint = $1', [endpoint]);
    expect(row.rows).toEqual([{ device_id: expect.anything(), p256dh: keys.p256dh }]);
    expect(Number(row.rows[0].device_id)).toBe(a.device.id);
    // the owner refreshes its keys
    const again = pushKeys();
    expect((await call('POST', '/mobile/push-subscriptions', bearer(a.access_token), { endpoint, keys: again })).statusCode).toBe(
      201,
    );
    const after = await h.deps.pg.query('SELECT p256dh FROM push_subscriptions WHERE endpoint = $1', [endpoint]);
    expect(after.rows[0].p256dh).toBe(again.p256dh);
  });
});

describe('revoke against a concurrent refresh', () => {
  it('no token of a revoked device works afterwards, whichever of the two commits first', async () => {
    for (let i = 0; i < 20; i++) {
      const e = (await enroll(await code(), randomUUID())).json();
      const [refreshed] = await Promise.all([
        call('POST', '/auth/refresh', {}, { refresh_token: e.refresh_token }),
        call('POST', `/devices/${e.device.id}/revoke`, admin),
      ]);
      const live = await h.deps.pg.query('SELECT 1 FROM refresh_tokens WHERE device_id = $1 AND revoked_at IS NULL', [
        e.device.id,
      ]);
      expect(live.rows, `round ${i}`).toHaveLength(0);
      if (refreshed.statusCode === 200) {
        const next = refreshed.json();
        expect((await call('GET', '/events', bearer(next.access_token))).statusCode).toBe(401);
        expect((await call('POST', '/auth/refresh', {}, { refresh_token: next.refresh_token })).statusCode).toBe(401);
      } else expect(refreshed.statusCode).toBe(401);
    }
  });
});
