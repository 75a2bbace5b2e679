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

describe('a phone is a phone (device scope)', () => {
  const DEVICE_SCOPE = (r: { statusCode: number; json(): { error: { code: string } } }) => [r.statusCode, r.json().error.code];

  it('an admin’s device token is refused everything but the mobile surface, with DEVICE_SCOPE', async () => {
    const other = (await enroll(await code(), randomUUID())).json();
    const e = (await enroll(await code(), randomUUID())).json(); // {}: the issuing admin's own phone
    expect(e.device).toMatchObject({ username: 'root', role: 'admin' });
    const t = bearer(e.access_token);
    const refused: [string, string, unknown?][] = [
      ['GET', '/users'],
      ['POST', '/users', { username: 'mallory', password: 'pw-mallory-secret-1', role: 'admin' }],
      ['GET', '/api-keys'],
      ['POST', '/api-keys', { name: 'stolen' }],
      ['GET', '/settings/event-types'],
      ['GET', '/settings/ui'],
      ['POST', '/hosts/1/actions/winrm-test', {}],
      ['POST', `/events/${randomUUID()}/actions/gateway-qwinsta`, {}],
      ['POST', '/devices/enrollment-codes', {}],
      ['GET', '/audit'],
      ['GET', '/devices'],
      ['POST', `/devices/${other.device.id}/revoke`],
      ['DELETE', `/devices/${other.device.id}`],
      ['GET', '/hosts'],
      ['GET', '/auth/me'],
    ];
    for (const [method, url, body] of refused) {
      const r = await call(method as 'GET', url, t, body);
      expect([url, ...DEVICE_SCOPE(r)]).toEqual([url, 403, 'DEVICE_SCOPE']);
    }
    // nothing happened: the other device is still active, no code was issued by the phone
    expect((await call('GET', '/events', bearer(other.access_token))).statusCode).toBe(200);
    // the mobile surface answers
    expect((await call('GET', '/events', t)).statusCode).toBe(200);
    expect((await call('GET', `/events/${randomUUID()}`, t)).statusCode).toBe(404);
    expect((await call('GET', '/problems', t)).statusCode).toBe(200);
    expect((await call('GET', `/problems/${randomUUID()}`, t)).statusCode).toBe(404);
    expect((await call('POST', `/problems/${randomUUID()}/acknowledge`, t)).statusCode).toBe(404);
    expect((await call('POST', `/problems/${randomUUID()}/resolve`, t)).statusCode).toBe(404);
    expect((await call('GET', '/dashboards/summary', t)).statusCode).toBe(200);
    expect((await call('GET', '/mobile/device', t)).json()).toMatchObject({ id: e.device.id });
    expect((await call('GET', '/mobile/push/vapid-public-key', t)).statusCode).toBe(200);
    const sub = { endpoint: `https://push.example.org/send/${randomUUID()}`, keys: pushKeys() };
    expect((await call('POST', '/mobile/push-subscriptions', t, sub)).statusCode).toBe(201);
    expect((await call('DELETE', '/mobile/push-subscriptions', t, { endpoint: sub.endpoint })).statusCode).toBe(204);
    const next = await call('POST', '/auth/refresh', {}, { refresh_token: e.refresh_token });
    expect(next.statusCode).toBe(200);
    // the refreshed token keeps the scope: in its claims and in its session
    const claims = JSON.parse(Buffer.from(next.json().access_token.split('.')[1], 'base64url').toString());
    expect(claims.dev).toBe(e.device.id);
    expect(DEVICE_SCOPE(await call('GET', '/users', bearer(next.json().access_token)))).toEqual([403, 'DEVICE_SCOPE']);
    expect((await call('POST', '/auth/logout', {}, { refresh_token: next.json().refresh_token })).statusCode).toBe(204);
    expect((await call('GET', '/events', bearer(next.json().access_token))).statusCode).toBe(401);
  });

  it('a monitor’s device works on the mobile surface with a monitor’s rights', async () => {
    const e = (await enroll(await code(monitorId), randomUUID())).json();
    const t = bearer(e.access_token);
    expect(e.device.role).toBe('monitor');
    for (const url of ['/events', '/problems', '/dashboards/summary', '/mobile/device'])
      expect([url, (await call('GET', url, t)).statusCode]).toEqual([url, 200]);
    expect((await call('POST', `/problems/${randomUUID()}/acknowledge`, t)).statusCode).toBe(404);
    expect(DEVICE_SCOPE(await call('GET', '/users', t))).toEqual([403, 'DEVICE_SCOPE']);
    expect(DEVICE_SCOPE(await call('GET', '/hosts', t))).toEqual([403, 'DEVICE_SCOPE']);
  });

  it('a code binds the device to its issuer or to a monitor, never to another admin', async () => {
    const other = await addUser(h, 'second-admin', 'admin');
    const r = await call('POST', '/devices/enrollment-codes', admin, { user_id: other.id });
    expect(r.statusCode).toBe(403);
    expect(r.json().error.message).toMatch(/another admin/);
    expect((await h.deps.pg.query('SELECT 1 FROM enrollment_codes WHERE user_id = $1', [other.id])).rows).toHaveLength(0);
    // the issuer themself, by id too
    const rootId = (await call('GET', '/auth/me', admin)).json().id as number;
    const self = await call('POST', '/devices/enrollment-codes', admin, { user_id: rootId });
    expect([self.statusCode, self.json().username]).toEqual([201, 'root']);
    // a monitor promoted to admin after the code was issued: the code no longer enrolls
    const promoted = await addUser(h, 'promoted', 'monitor');
    const c = await code(promoted.id);
    await h.deps.pg.query(`UPDATE users SET role = 'admin' WHERE id = $1`, [promoted.id]);
    expect((await enroll(c, randomUUID())).json().error.code).toBe('INVALID_CODE');
    const refused = await h.deps.pg.query<{ details: { reason: string } }>(
      `SELECT details FROM audit_log WHERE action = 'device.enroll_refused' ORDER BY id DESC LIMIT 1`,
    );
    expect(refused.rows[0]!.details.reason).toBe('another_admin');
  });

  it('enrollment guesses are limited per client address, whatever device UUID each guess names', async () => {
    const address = '198.51.100.77';
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await enroll('ZZZZZ-ZZZZZ', randomUUID(), address)).statusCode);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toEqual([429, 429]);
    const limited = await enroll(await code(), randomUUID(), address);
    expect([limited.statusCode, limited.json().error.details.scope]).toEqual([429, 'address']);
    // an IPv6 client is one /64: changing the interface part does not help
    const v6: number[] = [];
    for (let i = 0; i < 11; i++)
      v6.push((await enroll('ZZZZZ-ZZZZZ', randomUUID(), `2001:db8:7:9::${(i + 1).toString(16)}`)).statusCode);
    expect(v6.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(v6[10]).toBe(429);
    // another address is not affected, and logins from the guessing address are not either
    expect((await enroll(await code(), randomUUID(), '198.51.100.78')).statusCode).toBe(200);
    expect((await login(h, 'watcher', 'pw-watcher-secret', address)).statusCode).toBe(200);
  });
});

describe('enrollment guesses across all addresses (the code space)', () => {
  let g: ApiHarness;
  beforeAll(async () => {
    g = await createApiHarness('api_devices_global', { env: { SERVICE_ENROLL_MAX_FAILURES_PER_MINUTE: '5' } });
    await addUser(g, 'root', 'admin');
  });
  afterAll(async () => g?.close());

  it('N failures a minute from any addresses slow every enrollment down until the minute ends', async () => {
    const tok = (await login(g, 'root', 'pw-root-secret')).json().access_token;
    const guess = (c: string, i: number) =>
      g.app.inject({
        method: 'POST',
        url: '/api/v1/mobile/enroll',
        remoteAddress: `192.0.2.${i}`,
        payload: { code: c, device_uuid: randomUUID(), name: 'Pixel', platform: 'android' },
      });
    const statuses: number[] = [];
    for (let i = 1; i <= 6; i++) statuses.push((await guess('ZZZZZ-ZZZZZ', i)).statusCode);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const c = (
      await g.app.inject({
        method: 'POST',
        url: '/api/v1/devices/enrollment-codes',
        headers: bearer(tok),
        payload: {},
      })
    ).json().code as string;
    const slowed = await guess(c, 50);
    expect([slowed.statusCode, slowed.json().error.details.scope]).toEqual([429, 'code_space']);
    expect(Number(slowed.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(slowed.headers['retry-after'])).toBeLessThanOrEqual(60);
  });
});
