// Login, refresh rotation and reuse, per-request re-check of the user, login rate limit with its
// notification job, and the admin routes (users, settings, audit) end to end on real Postgres/Redis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createApiHarness, login, TEST_JWT_SECRET, type ApiHarness } from '@watchpost/testkit/api';
import { rateLimitJobId } from './login-limit.ts';
import { DEVICE_COOKIE_PREFIX, deviceCookieKey, deviceCookieName, deviceCookieValue } from './device-cookie.ts';

let h: ApiHarness;
let adminAuth: Record<string, string>;
let admin: Awaited<ReturnType<typeof addUser>>;

beforeAll(async () => {
  h = await createApiHarness('api_auth');
  admin = await addUser(h, 'boss', 'admin');
  const r = await login(h, admin.username, admin.password, '10.9.9.9');
  adminAuth = { authorization: `Bearer ${r.json().access_token}` };
});
afterAll(async () => h?.close());

const me = (token: string) => h.app.inject({ url: '/api/v1/auth/me', headers: { authorization: `Bearer ${token}` } });
const refresh = (token: string) =>
  h.app.inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refresh_token: token } });
const patchUser = (id: number, body: object) =>
  h.app.inject({ method: 'PATCH', url: `/api/v1/users/${id}`, headers: adminAuth, payload: body });

describe('tokens', () => {
  it('login returns the token pair with documented lifetimes; the username is case-insensitive', async () => {
    const u = await addUser(h, 'tokens', 'monitor');
    const r = await login(h, 'TOKENS', u.password);
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 900, refresh_expires_in: 30 * 86400 });
    const claims = JSON.parse(Buffer.from(body.access_token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ sub: String(u.id), role: 'monitor', tv: 1, iss: 'watchpost', aud: 'watchpost-api' });
    expect(claims.exp - claims.iat).toBe(900);
    const stored = await h.deps.pg.query('SELECT token_hash FROM refresh_tokens WHERE user_id = $1', [u.id]);
    expect(stored.rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.rows[0].token_hash).not.toBe(body.refresh_token);
  });

  it('rotates refresh tokens; reuse of a spent one revokes the whole family', async () => {
    const u = await addUser(h, 'rotator', 'monitor');
    const first = (await login(h, u.username, u.password)).json();
    const second = await refresh(first.refresh_token);
    expect(second.statusCode).toBe(200);
    expect(second.json().refresh_token).not.toBe(first.refresh_token);
    expect((await me(second.json().access_token)).statusCode).toBe(200);
    // The spent token again: refused, and the successor dies with it.
    const reuse = await refresh(first.refresh_token);
    expect(reuse.statusCode).toBe(401);
    expect(reuse.json().error.code).toBe('UNAUTHENTICATED');
    expect((await refresh(second.json().refresh_token)).statusCode).toBe(401);
    const audit = await h.deps.pg.query("SELECT count(*)::int AS n FROM audit_log WHERE action = 'auth.refresh.reuse'");
    expect(audit.rows[0].n).toBeGreaterThanOrEqual(1);
    // Another session of the same user is untouched.
    const other = (await login(h, u.username, u.password)).json();
    expect((await refresh(other.refresh_token)).statusCode).toBe(200);
  });

  it('logout revokes the session’s refresh token', async () => {
    const u = await addUser(h, 'leaver', 'monitor');
    const t = (await login(h, u.username, u.password)).json();
    const out = await h.app.inject({ method: 'POST', url: '/api/v1/auth/logout', payload: { refresh_token: t.refresh_token } });
    expect(out.statusCode).toBe(204);
    expect((await refresh(t.refresh_token)).statusCode).toBe(401);
  });
});

describe('every request re-checks the user', () => {
  it('a deactivated user’s tokens are refused at once, and stay refused after reactivation', async () => {
    const u = await addUser(h, 'sleeper', 'monitor');
    const t = (await login(h, u.username, u.password)).json();
    expect((await me(t.access_token)).statusCode).toBe(200);
    expect((await patchUser(u.id, { active: false })).statusCode).toBe(200);
    expect((await me(t.access_token)).statusCode).toBe(401);
    expect((await refresh(t.refresh_token)).statusCode).toBe(401);
    expect((await login(h, u.username, u.password, '10.0.0.7')).statusCode).toBe(401);
    expect((await patchUser(u.id, { active: true })).statusCode).toBe(200);
    expect((await me(t.access_token)).statusCode).toBe(401);
    expect((await refresh(t.refresh_token)).statusCode).toBe(401);
    const fresh = (await login(h, u.username, u.password, '10.0.0.8')).json();
    expect((await me(fresh.access_token)).statusCode).toBe(200);
  });

  it('logout ends that session at once (its access token too), not the user’s other sessions', async () => {
    const u = await addUser(h, 'session-leaver', 'monitor');
    const one = (await login(h, u.username, u.password, '10.0.1.1')).json();
    const two = (await login(h, u.username, u.password, '10.0.1.2')).json();
    const out = await h.app.inject({ method: 'POST', url: '/api/v1/auth/logout', payload: { refresh_token: one.refresh_token } });
    expect(out.statusCode).toBe(204);
    expect((await me(one.access_token)).statusCode).toBe(401);
    expect((await me(two.access_token)).statusCode).toBe(200);
  });

  it('a session has an absolute lifetime, however often it is refreshed', async () => {
    const short = await createApiHarness('api_auth_session_max', { auth: { sessionMaxSeconds: 2 } });
    try {
      const u = await addUser(short, 'brief', 'monitor');
      const t = (
        await short.app.inject({
          method: 'POST',
          url: '/api/v1/auth/login',
          payload: { username: 'brief', password: u.password },
        })
      ).json();
      const r1 = await short.app.inject({
        method: 'POST',
        url: '/api/v1/auth/refresh',
        payload: { refresh_token: t.refresh_token },
      });
      expect(r1.statusCode).toBe(200);
      await new Promise((r) => setTimeout(r, 2500));
      const r2 = await short.app.inject({
        method: 'POST',
        url: '/api/v1/auth/refresh',
        payload: { refresh_token: r1.json().refresh_token },
      });
      expect(r2.statusCode).toBe(401);
      const meOld = await short.app.inject({
        url: '/api/v1/auth/me',
        headers: { authorization: `Bearer ${r1.json().access_token}` },
      });
      expect(meOld.statusCode).toBe(401);
    } finally {
      await short.close();
    }
  });

  it('a role change refuses older tokens; a password reset refuses all tokens', async () => {
    const u = await addUser(h, 'mover', 'monitor');
    const t = (await login(h, u.username, u.password)).json();
    expect((await patchUser(u.id, { role: 'admin' })).json().role).toBe('admin');
    expect((await me(t.access_token)).statusCode).toBe(401);
    const t2 = (await refresh(t.refresh_token)).json();
    expect((await me(t2.access_token)).json().role).toBe('admin');
    const reset = await h.app.inject({
      method: 'POST',
      url: `/api/v1/users/${u.id}/password`,
      headers: adminAuth,
      payload: { password: 'a brand new password' },
    });
    expect(reset.statusCode).toBe(204);
    expect((await me(t2.access_token)).statusCode).toBe(401);
    expect((await refresh(t2.refresh_token)).statusCode).toBe(401);
    expect((await login(h, u.username, 'a brand new password')).statusCode).toBe(200);
  });

  it('a removed user’s token is refused', async () => {
    const u = await addUser(h, 'gone', 'monitor');
    const t = (await login(h, u.username, u.password)).json();
    await h.deps.pg.query('DELETE FROM users WHERE id = $1', [u.id]);
    expect((await me(t.access_token)).statusCode).toBe(401);
  });

  it('refuses to leave no active admin', async () => {
    const self = await me(adminAuth.authorization!.slice(7));
    // 'mover' was promoted above: make boss the only active admin.
    await h.deps.pg.query("UPDATE users SET active = false WHERE role = 'admin' AND username <> 'boss'");
    const r = await patchUser(self.json().id, { role: 'monitor' });
    expect(r.statusCode).toBe(409);
    expect(r.json().error.code).toBe('LAST_ADMIN');
    expect((await patchUser(self.json().id, { active: false })).statusCode).toBe(409);
    expect((await me(adminAuth.authorization!.slice(7))).json().role).toBe('admin');
  });
});

describe('login rate limit', () => {
  it('the 4th attempt gets 429 with Retry-After, even with the right password; the alert is enqueued once', async () => {
    const victim = await addUser(h, 'victim', 'monitor');
    const bystander = await addUser(h, 'bystander', 'monitor');
    const addr = '192.0.2.10';
    const wrong = [];
    for (let i = 0; i < 3; i++) wrong.push(await login(h, victim.username, 'wrong password', addr));
    expect(wrong.map((r) => r.statusCode)).toEqual([401, 401, 401]);
    const fourth = await login(h, victim.username, victim.password, addr);
    expect(fourth.statusCode).toBe(429);
    expect(fourth.json().error.code).toBe('RATE_LIMITED');
    expect(fourth.json().error.details.scope).toBe('pair');
    const retry = Number(fourth.headers['retry-after']);
    expect(retry).toBeGreaterThan(890);
    expect(retry).toBeLessThanOrEqual(900);
    // Three typos lock that username at that address only: the user elsewhere, and others here, log in.
    expect((await login(h, victim.username, victim.password, '192.0.2.99')).statusCode).toBe(200);
    expect((await login(h, bystander.username, bystander.password, addr)).statusCode).toBe(200);

    // The chat alert job, with its data and deterministic id.
    const jobs = await h.deps.notifications.getJobs(['waiting', 'prioritized', 'delayed']);
    const job = jobs.find((j) => j.data.username === 'victim');
    expect(job?.data).toMatchObject({ kind: 'login_rate_limited', channel: 'chat', username: 'victim', address: addr });
    expect(job!.id).toBe(rateLimitJobId({ username: 'victim', address: addr }, Date.parse(job!.data.at), 900));
    expect(job!.opts.attempts).toBeGreaterThan(1); // retried if Postgres or Redis blips in the worker
    expect(jobs.filter((j) => j.data.username === 'victim')).toHaveLength(1);
    const audit = await h.deps.pg.query("SELECT action FROM audit_log WHERE target = 'victim' ORDER BY id");
    expect(audit.rows.map((r) => r.action)).toEqual([
      'auth.login.failure',
      'auth.login.failure',
      'auth.login.failure',
      'auth.login.rate_limited',
      'auth.login.success',
    ]);
  });

  it('evaluates at most 3 guesses per username and address, however many arrive at once', async () => {
    const target = await addUser(h, 'concurrent', 'monitor');
    const addr = '192.0.2.30';
    const answers = await Promise.all(Array.from({ length: 20 }, () => login(h, target.username, 'wrong password', addr)));
    const codes = answers.map((r) => r.statusCode).sort();
    expect(codes.filter((c) => c === 401)).toHaveLength(3);
    expect(codes.filter((c) => c === 429)).toHaveLength(17);
    const evaluated = await h.deps.pg.query(
      "SELECT count(*)::int AS n FROM audit_log WHERE target = 'concurrent' AND action = 'auth.login.failure'",
    );
    expect(evaluated.rows[0].n).toBe(3);
    expect((await login(h, target.username, target.password, addr)).statusCode).toBe(429);
    const jobs = await h.deps.notifications.getJobs(['waiting', 'prioritized', 'delayed']);
    expect(jobs.filter((j) => j.data.username === 'concurrent')).toHaveLength(1);
  });

  it("one person's typos do not lock out a colleague behind the same address; spraying from one address does", async () => {
    const office = '198.51.100.5';
    const a = await addUser(h, 'colleague-a', 'monitor');
    const b = await addUser(h, 'colleague-b', 'monitor');
    for (let i = 0; i < 3; i++) expect((await login(h, a.username, 'typo', office)).statusCode).toBe(401);
    expect((await login(h, a.username, a.password, office)).statusCode).toBe(429);
    expect((await login(h, b.username, b.password, office)).statusCode).toBe(200);

    // An unknown user is answered exactly like a wrong password.
    const x = await login(h, 'nobody-1', 'x', '198.51.100.7');
    const y = await login(h, b.username, 'wrong password', '198.51.100.7');
    expect(x.statusCode).toBe(401);
    expect(x.body).toBe(y.body);

    // Spraying: many usernames from one address hit the per-address limit (5 here) for everyone there.
    const sprayed = await createApiHarness('api_auth_spray', { auth: { maxFailuresPerAddress: 5, maxFailuresPerUser: 4 } });
    try {
      const c = await addUser(sprayed, 'sprayed', 'monitor');
      for (let i = 0; i < 5; i++) expect((await login(sprayed, `guess-${i}`, 'x', '203.0.113.9')).statusCode).toBe(401);
      const refused = await login(sprayed, c.username, c.password, '203.0.113.9');
      expect([refused.statusCode, refused.json().error.details.scope]).toEqual([429, 'address']);
      // Guessing one username from many addresses hits the per-username limit (4 here).
      for (let i = 0; i < 4; i++) await login(sprayed, c.username, 'x', `203.0.113.${20 + i}`);
      const byUser = await login(sprayed, c.username, c.password, '203.0.113.40');
      expect([byUser.statusCode, byUser.json().error.details.scope]).toEqual([429, 'username']);
    } finally {
      await sprayed.close();
    }
  });

  it('bounds concurrent password verifications: beyond the bound 503 with Retry-After, and nothing counted', async () => {
    const one = await createApiHarness('api_auth_slots', { auth: { maxConcurrentVerifications: 1 } });
    try {
      const u = await addUser(one, 'slots', 'monitor');
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => login(one, u.username, 'wrong password', `192.0.2.${100 + i}`)),
      );
      const busy = answers.filter((r) => r.statusCode === 503);
      expect(busy.length).toBeGreaterThan(0);
      expect(busy[0]!.headers['retry-after']).toBe('1');
      expect(answers.filter((r) => r.statusCode === 401).length + busy.length).toBe(6);
      // The refused attempts were given back: the user still has guesses left at each address.
      expect((await login(one, u.username, u.password, '192.0.2.100')).statusCode).toBe(200);
    } finally {
      await one.close();
    }
  });
});

describe('no lockout by strangers (device cookies, known addresses)', () => {
  /** A browser login (cookie flow) with an optional Cookie header. */
  const browserLogin = (username: string, password: string, address: string, cookie?: string) =>
    h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username, password, refresh_cookie: true },
      remoteAddress: address,
      headers: cookie ? { cookie } : {},
    });
  /** The device cookie a login set, as `name=value`. */
  const deviceCookieOf = (r: { headers: Record<string, string | string[] | number | undefined> }) => {
    const set = r.headers['set-cookie'];
    const line = (Array.isArray(set) ? set : typeof set === 'string' ? [set] : []).find((c) =>
      c.startsWith(DEVICE_COOKIE_PREFIX),
    );
    if (!line) throw new Error('no device cookie set');
    return { cookie: line.split(';')[0]!, attrs: line };
  };
  const scope = (r: { statusCode: number; json(): { error?: { details?: { scope?: string } } } }) =>
    r.statusCode === 429 ? `429 ${r.json().error!.details!.scope}` : String(r.statusCode);

  it("strangers' guesses lock the username for unknown browsers; the owner's browser and recent address still log in", async () => {
    const owner = await addUser(h, 'owner', 'admin');
    // The owner logs in at the office (one browser) and at home (another): each gets its device cookie.
    const office = await browserLogin('Owner', owner.password, '100.64.7.1');
    expect(office.statusCode).toBe(200);
    const officeCookie = deviceCookieOf(office);
    expect(officeCookie.attrs).toContain('HttpOnly');
    expect(officeCookie.attrs).toContain('SameSite=Strict');
    expect(officeCookie.attrs).toContain('Path=/api/v1/auth/login');
    expect(officeCookie.attrs).toContain(`Max-Age=${30 * 86400}`);
    expect(officeCookie.attrs).not.toContain('Secure'); // plain http here
    const home = deviceCookieOf(await browserLogin('owner', owner.password, '100.64.7.2'));

    // Strangers guess from many addresses: after 10 the username is locked for unknown browsers.
    const guesses = [];
    for (let i = 1; i <= 12; i++) guesses.push(scope(await login(h, 'owner', `guess-${i}`, `198.18.7.${i}`)));
    expect(guesses).toEqual([...Array(10).fill('401'), '429 username', '429 username']);
    expect(scope(await login(h, 'owner', owner.password, '198.18.7.99'))).toBe('429 username');

    // The owner's browser, even from an address never seen (travelling), logs in with its cookie...
    const travelling = await browserLogin('owner', owner.password, '203.0.113.250', officeCookie.cookie);
    expect(travelling.statusCode).toBe(200);
    const renewed = deviceCookieOf(travelling);
    expect(renewed.cookie).not.toBe(officeCookie.cookie); // a fresh cookie after every success
    // ...and without a cookie, the address the owner logged in from recently is not under the username lock.
    expect((await login(h, 'owner', owner.password, '100.64.7.2')).statusCode).toBe(200);
    expect(scope(await login(h, 'owner', owner.password, '198.18.7.100'))).toBe('429 username');

    // A forged, expired or another user's cookie is ignored: the attempt is an unknown browser's.
    const key = deviceCookieKey(TEST_JWT_SECRET);
    const [name, value] = renewed.cookie.split('=') as [string, string];
    const tampered = `${name}=${value.slice(0, -2)}${value.endsWith('AA') ? 'BB' : 'AA'}`;
    const otherKey = deviceCookieKey(new TextEncoder().encode('another-secret-another-secret-another-secret'));
    const owned = { username: 'owner', tokenVersion: 1 };
    const forged = `${name}=${deviceCookieValue(otherKey, owned, 3600)}`;
    const expired = `${name}=${deviceCookieValue(key, owned, 3600, Date.now() - 7200_000)}`;
    const someoneElses = `${name}=${deviceCookieValue(key, { username: 'boss', tokenVersion: 1 }, 3600)}`;
    // Signed before the owner's last password change (an older token version): refused too.
    const beforeChange = `${name}=${deviceCookieValue(key, { username: 'owner', tokenVersion: 0 }, 3600)}`;
    for (const cookie of [tampered, forged, expired, someoneElses, beforeChange])
      expect(scope(await browserLogin('owner', owner.password, '198.18.7.101', cookie)), cookie).toBe('429 username');
    expect(deviceCookieName(key, 'owner')).toBe(name);

    // A cookie's own failures lock only that cookie: the home browser is still fine.
    const typos = [];
    for (let i = 0; i < 4; i++) typos.push(scope(await browserLogin('owner', 'typo', '100.64.7.3', renewed.cookie)));
    expect(typos).toEqual(['401', '401', '401', '429 device']);
    expect(scope(await browserLogin('owner', owner.password, '100.64.7.3', renewed.cookie))).toBe('429 device');
    expect((await browserLogin('owner', owner.password, '100.64.7.3', home.cookie)).statusCode).toBe(200);

    const audit = await h.deps.pg.query<{ action: string; details: Record<string, unknown> }>(
      "SELECT action, details FROM audit_log WHERE target = 'owner' AND address LIKE '100.64.7.%' ORDER BY id",
    );
    expect(audit.rows.map((r) => [r.action, r.details.trusted ?? null])).toEqual([
      ['auth.login.success', null],
      ['auth.login.success', null],
      ['auth.login.success', 'known_address'],
      ['auth.login.failure', 'device_cookie'],
      ['auth.login.failure', 'device_cookie'],
      ['auth.login.failure', 'device_cookie'],
      ['auth.login.rate_limited', null],
      ['auth.login.success', 'device_cookie'],
    ]);
  }, 300_000);

  it('a stranger at a known address is still limited there (3 guesses, then that address is locked for the username)', async () => {
    const u = await addUser(h, 'shared-office', 'monitor');
    expect((await login(h, u.username, u.password, '100.64.8.1')).statusCode).toBe(200);
    const at = [];
    for (let i = 0; i < 4; i++) at.push(scope(await login(h, u.username, 'guess', '100.64.8.1')));
    expect(at).toEqual(['401', '401', '401', '429 pair']);
  });

  it('SERVICE_LOGIN_KNOWN_ADDRESSES=0 turns the known-address exemption off', async () => {
    const strict = await createApiHarness('api_auth_known_off', {
      env: { SERVICE_LOGIN_KNOWN_ADDRESSES: '0' },
      auth: { maxFailuresPerUser: 3 },
    });
    try {
      const u = await addUser(strict, 'strict', 'monitor');
      expect((await login(strict, u.username, u.password, '100.64.9.1')).statusCode).toBe(200);
      for (let i = 0; i < 3; i++) await login(strict, u.username, 'guess', `198.18.9.${i + 1}`);
      const r = await login(strict, u.username, u.password, '100.64.9.1');
      expect([r.statusCode, r.json().error.details.scope]).toEqual([429, 'username']);
    } finally {
      await strict.close();
    }
  });
});

describe('client address behind a reverse proxy', () => {
  const viaProxy = (hh: ApiHarness, username: string, password: string, forwardedFor: string) =>
    hh.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username, password },
      remoteAddress: '127.0.0.1',
      headers: { 'x-forwarded-for': forwardedFor },
    });

  it('X-Forwarded-For is ignored unless SERVICE_TRUST_PROXY names the proxy', async () => {
    // Not trusted (default): three failures under three forged addresses all count at the proxy's address.
    const u = await addUser(h, 'behind-default', 'monitor');
    for (const f of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) await viaProxy(h, u.username, 'x', f);
    expect((await viaProxy(h, u.username, u.password, '203.0.113.4')).statusCode).toBe(429);

    const trusted = await createApiHarness('api_auth_proxy', { env: { SERVICE_TRUST_PROXY: '127.0.0.1' } });
    try {
      const v = await addUser(trusted, 'behind-proxy', 'monitor');
      for (let i = 1; i <= 3; i++) await viaProxy(trusted, v.username, 'x', '203.0.113.50');
      // The forwarded client is locked; another client behind the same proxy is not.
      expect((await viaProxy(trusted, v.username, v.password, '203.0.113.50')).statusCode).toBe(429);
      expect((await viaProxy(trusted, v.username, v.password, '203.0.113.51')).statusCode).toBe(200);
      const audit = await trusted.deps.pg.query("SELECT address FROM audit_log WHERE action = 'auth.login.success'");
      expect(audit.rows.map((r) => r.address)).toEqual(['203.0.113.51']);
    } finally {
      await trusted.close();
    }
  });
});

describe('admin routes', () => {
  /** A request of the admin with a JSON body. */
  const send = (method: 'POST' | 'PUT', path: string, payload: object) =>
    h.app.inject({ method, url: `/api/v1${path}`, headers: adminAuth, payload });

  it('creates and lists users, refuses duplicates and short passwords', async () => {
    const created = await send('POST', '/users', { username: 'NewOne', password: 'long enough password', role: 'monitor' });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ username: 'newone', role: 'monitor', active: true });
    expect(created.body).not.toMatch(/password|scrypt/);
    const dup = await send('POST', '/users', { username: 'newone', password: 'long enough password', role: 'admin' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error.code).toBe('USER_EXISTS');
    const short = await send('POST', '/users', { username: 'shorty', password: 'short', role: 'admin' });
    expect(short.statusCode).toBe(400);
    const list = await h.app.inject({ url: '/api/v1/users', headers: adminAuth });
    expect(list.json().items.map((u: { username: string }) => u.username)).toContain('newone');
    expect((await patchUser(999999, { active: false })).statusCode).toBe(404);
  });

  it('stores event type settings and the sidebar toggle, and audits them', async () => {
    const put = await send('PUT', '/settings/event-types/rdg.connection.302', { severity_override: 'critical', visible: false });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({
      type: 'rdg.connection.302',
      severity_override: 'critical',
      visible: false,
      updated_by: 'boss',
    });
    const clear = await send('PUT', '/settings/event-types/rdg.connection.302', { severity_override: null, visible: true });
    expect(clear.json()).toMatchObject({ severity_override: null, visible: true });
    const bad = await send('PUT', '/settings/event-types/x', { severity_override: 'urgent', visible: true });
    expect(bad.statusCode).toBe(400);
    const list = await h.app.inject({ url: '/api/v1/settings/event-types', headers: adminAuth });
    expect(list.json().items).toHaveLength(1);
    expect(
      (await h.app.inject({ method: 'DELETE', url: '/api/v1/settings/event-types/rdg.connection.302', headers: adminAuth }))
        .statusCode,
    ).toBe(204);
    expect(
      (await h.app.inject({ method: 'DELETE', url: '/api/v1/settings/event-types/rdg.connection.302', headers: adminAuth }))
        .statusCode,
    ).toBe(404);

    expect((await h.app.inject({ url: '/api/v1/settings/ui', headers: adminAuth })).json()).toEqual({ sidebar_stats: false });
    const ui = await send('PUT', '/settings/ui', { sidebar_stats: true });
    expect(ui.json()).toEqual({ sidebar_stats: true });
    expect((await h.app.inject({ url: '/api/v1/settings/ui', headers: adminAuth })).json()).toEqual({ sidebar_stats: true });

    const audit = await h.app.inject({ url: '/api/v1/audit?action=setting&limit=10', headers: adminAuth });
    expect(audit.statusCode).toBe(200);
    const actions = audit.json().items.map((i: { action: string }) => i.action);
    expect(actions).toEqual(['setting.ui', 'setting.event_type.delete', 'setting.event_type', 'setting.event_type']);
    expect(audit.json().items[0]).toMatchObject({ actor: 'boss', target: 'ui.sidebar_stats', details: { sidebar_stats: true } });
    const page = await h.app.inject({
      url: `/api/v1/audit?action=setting&limit=2&before_id=${audit.json().items[1].id}`,
      headers: adminAuth,
    });
    expect(page.json().items.map((i: { action: string }) => i.action)).toEqual(['setting.event_type', 'setting.event_type']);
    const logins = await h.app.inject({ url: '/api/v1/audit?action=auth.login.success&actor=boss', headers: adminAuth });
    expect(logins.json().items[0]).toMatchObject({ actor: 'boss', address: '10.9.9.9', action: 'auth.login.success' });
  });

  it('creates, lists and revokes agent API keys', async () => {
    const c = await h.app.inject({ method: 'POST', url: '/api/v1/api-keys', headers: adminAuth, payload: { name: 'web-01' } });
    expect(c.statusCode).toBe(201);
    const { id, key } = c.json();
    expect(await h.deps.verifyAgentKey(key)).toBe(true);
    const list = await h.app.inject({ url: '/api/v1/api-keys', headers: adminAuth });
    expect(list.body).not.toContain(key);
    expect(list.json().items.find((k: { id: number }) => k.id === id)).toMatchObject({ name: 'web-01', revoked_at: null });
    expect((await h.app.inject({ method: 'DELETE', url: `/api/v1/api-keys/${id}`, headers: adminAuth })).statusCode).toBe(204);
    expect(await h.deps.verifyAgentKey(key)).toBe(false);
    expect((await h.app.inject({ method: 'DELETE', url: `/api/v1/api-keys/${id}`, headers: adminAuth })).statusCode).toBe(404);
  });
});
