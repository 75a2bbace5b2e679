// The second factor and self-service passwords (issue 33 item 8, ASVS 5.0 level 2) on the real stores:
// TOTP enrolment and confirmation, the login's second step (codes, replays, recovery codes, the login
// limiter counting wrong codes), disabling with password and code, the admins' requirement
// (SERVICE_REQUIRE_TOTP_FOR_ADMINS), the user's own password change (other sessions, phones and device
// cookies end; this session goes on) and an admin's reset (every session, phone and device cookie ends).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recoveryCodeHash, totpCodeAt } from '@watchpost/core';
import { addUser, createApiHarness, login, type ApiHarness } from '@watchpost/testkit/api';
import { DEVICE_COOKIE_PREFIX } from '../auth/device-cookie.ts';

type Reply = Awaited<ReturnType<ApiHarness['app']['inject']>>;
type User = Awaited<ReturnType<typeof addUser>>;

let h: ApiHarness;
let admin: User;
let adminAuth: Record<string, string>;

beforeAll(async () => {
  h = await createApiHarness('api_mfa');
  admin = await addUser(h, 'mfa-chief', 'admin');
  adminAuth = bearer((await login(h, admin.username, admin.password)).json().access_token);
});
afterAll(async () => h?.close());

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const call = (
  hh: ApiHarness,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  headers = {},
  payload?: object,
  address = '127.0.0.1',
) => hh.app.inject({ method, url: `/api/v1${url}`, headers, payload, remoteAddress: address });
const post = (url: string, headers: Record<string, string>, payload: object, address?: string) =>
  call(h, 'POST', url, headers, payload, address);
const get = (url: string, headers: Record<string, string>) => call(h, 'GET', url, headers);

/** A password-only login's tokens (users without a second factor). */
async function session(hh: ApiHarness, u: User, address = '127.0.0.1') {
  const r = await login(hh, u.username, u.password, address);
  expect(r.statusCode).toBe(200);
  return r.json() as { access_token: string; refresh_token: string };
}

/** Enrols the user's authenticator: start (password), confirm (a code of now). */
async function enrol(hh: ApiHarness, u: User, auth: Record<string, string>) {
  const start = await call(hh, 'POST', '/account/totp/start', auth, { password: u.password });
  expect(start.statusCode).toBe(200);
  const { secret } = start.json() as { secret: string };
  const confirm = await call(hh, 'POST', '/account/totp/confirm', auth, { code: totpCodeAt(secret) });
  expect(confirm.statusCode).toBe(200);
  return { secret, recoveryCodes: confirm.json().recovery_codes as string[] };
}

/**
 * A code the service takes now. The tests log in more often than once per 30 s step, so the step spent
 * last is forgotten first (the replay rule has its own test, which does not use this).
 */
async function freshCode(hh: ApiHarness, userId: number, secret: string): Promise<string> {
  await hh.deps.pg.query('UPDATE users SET totp_last_step = NULL WHERE id = $1', [userId]);
  return totpCodeAt(secret);
}

/** Six digits that are none of the codes of the two steps either side of now. */
function wrongCode(secret: string): string {
  const near = new Set([-2, -1, 0, 1, 2].map((d) => totpCodeAt(secret, Date.now() + d * 30_000)));
  for (let n = 123_456; ; n++) if (!near.has(String(n))) return String(n);
}

/** The password step: must ask for the second factor. */
async function challenge(hh: ApiHarness, u: User, address = '127.0.0.1', cookieFlow = false): Promise<string> {
  const r = await call(
    hh,
    'POST',
    '/auth/login',
    {},
    { username: u.username, password: u.password, refresh_cookie: cookieFlow },
    address,
  );
  expect(r.statusCode).toBe(200);
  const body = r.json();
  expect(body).toEqual({ mfa_required: true, mfa_token: expect.stringMatching(/^[\w-]{43}$/), expires_in: 300 });
  return body.mfa_token;
}

const second = (hh: ApiHarness, mfaToken: string, factor: object, address = '127.0.0.1') =>
  call(hh, 'POST', '/auth/login/mfa', {}, { mfa_token: mfaToken, ...factor }, address);

const auditOf = async (target: string, action: string) =>
  (
    await h.deps.pg.query<{ actor: string | null; details: Record<string, unknown> }>(
      'SELECT actor, details FROM audit_log WHERE target = $1 AND action = $2 ORDER BY id',
      [target, action],
    )
  ).rows;

/** A phone enrolled for `userId` (the admin issues the code, as in api/MOBILE.md). */
async function phone(userId: number) {
  const code = await post('/devices/enrollment-codes', adminAuth, { user_id: userId });
  expect(code.statusCode).toBe(201);
  const e = await post(
    '/mobile/enroll',
    {},
    { code: code.json().code, device_uuid: randomUUID(), name: 'Pixel', platform: 'android' },
  );
  expect(e.statusCode).toBe(200);
  return e.json() as { access_token: string; refresh_token: string; device: { id: number } };
}
const deviceStatus = async (id: number) =>
  (await get('/devices', adminAuth)).json().items.find((d: { id: number }) => d.id === id)?.status as string;

/** The cookie flow's device cookie (`name=value`) a login set. */
function deviceCookieOf(r: Reply): string {
  const set = r.headers['set-cookie'];
  const line = (Array.isArray(set) ? set : typeof set === 'string' ? [set] : []).find((c) => c.startsWith(DEVICE_COOKIE_PREFIX));
  if (!line) throw new Error('no device cookie set');
  return line.split(';')[0]!;
}

/** A browser's cookie-flow login from `address`, sending the device cookie a login there set before. */
const browserLogin = (username: string, password: string, address: string, cookie: string) =>
  h.app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { username, password, refresh_cookie: true },
    remoteAddress: address,
    headers: { cookie },
  });

/** A browser's cookie-flow login of `u` from `address`: the device cookie the browser keeps. */
async function browserDeviceCookie(u: { username: string; password: string }, address: string): Promise<string> {
  const body = { username: u.username, password: u.password, refresh_cookie: true };
  return deviceCookieOf(await call(h, 'POST', '/auth/login', {}, body, address));
}

describe('TOTP enrolment', () => {
  it('start asks for the password and shows the secret once; confirm with a code activates it and gives 10 recovery codes', async () => {
    const u = await addUser(h, 'enroller', 'monitor');
    const auth = bearer((await session(h, u)).access_token);
    expect((await get('/account/security', auth)).json()).toEqual({
      totp_enabled: false,
      totp_enabled_at: null,
      totp_pending: false,
      recovery_codes_left: 0,
      totp_required: false,
    });
    const wrong = await post('/account/totp/start', auth, { password: 'not-the-password' });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().error.code).toBe('WRONG_PASSWORD');
    expect(await auditOf(u.username, 'account.verify_failure')).toHaveLength(1);

    const start = await post('/account/totp/start', auth, { password: u.password });
    expect(start.statusCode).toBe(200);
    expect(start.headers['cache-control']).toBe('no-store');
    const { secret, otpauth_uri: uri } = start.json();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(start.json()).toMatchObject({ algorithm: 'SHA1', digits: 6, period: 30 });
    const parsed = new URL(uri);
    expect(parsed.protocol).toBe('otpauth:');
    expect(parsed.searchParams.get('secret')).toBe(secret);
    expect(decodeURIComponent(parsed.pathname)).toBe('/watchpost:enroller');
    // Stored encrypted, never as the base32 the user saw; not active until confirmed.
    const row = (await h.deps.pg.query('SELECT totp_secret_enc, totp_enabled_at FROM users WHERE id = $1', [u.id])).rows[0];
    expect(row.totp_secret_enc).toMatch(/^v1:/);
    expect(row.totp_secret_enc).not.toContain(secret);
    expect(row.totp_enabled_at).toBeNull();
    expect((await get('/account/security', auth)).json()).toMatchObject({ totp_enabled: false, totp_pending: true });
    expect((await login(h, u.username, u.password)).json().access_token).toBeDefined(); // login unchanged yet

    const bad = await post('/account/totp/confirm', auth, { code: wrongCode(secret) });
    expect(bad.statusCode).toBe(403);
    expect(bad.json().error.code).toBe('INVALID_CODE');
    const confirming = totpCodeAt(secret);
    const ok = await post('/account/totp/confirm', auth, { code: confirming });
    expect(ok.statusCode).toBe(200);
    const codes = ok.json().recovery_codes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^([0-9A-Z]{4}-){5}[0-9A-Z]{4}$/);
    // Only their SHA-256 is stored.
    const stored = await h.deps.pg.query<{ code_hash: string }>('SELECT code_hash FROM user_recovery_codes WHERE user_id = $1', [
      u.id,
    ]);
    expect(stored.rows.map((r) => r.code_hash).sort()).toEqual(codes.map(recoveryCodeHash).sort());
    expect((await get('/account/security', auth)).json()).toMatchObject({ totp_enabled: true, recovery_codes_left: 10 });
    expect((await get('/auth/me', auth)).json()).toMatchObject({ totp_enabled: true, mfa_enrolment_required: false });
    expect((await get('/users', adminAuth)).json().items.find((x: { id: number }) => x.id === u.id).totp_enabled).toBe(true);
    // The confirming code cannot log in; a second start is refused while the factor is active.
    const t = await challenge(h, u);
    expect((await second(h, t, { code: confirming })).json().error.code).toBe('INVALID_CODE');
    const again = await post('/account/totp/start', auth, { password: u.password });
    expect([again.statusCode, again.json().error.code]).toEqual([409, 'TOTP_ALREADY_ENABLED']);
    expect(await auditOf(u.username, 'account.totp.enable')).toHaveLength(1);
  });

  it('confirm without a started enrolment is 409; a mobile device cannot reach the account routes', async () => {
    const u = await addUser(h, 'no-start', 'monitor');
    const auth = bearer((await session(h, u)).access_token);
    const r = await post('/account/totp/confirm', auth, { code: '123456' });
    expect([r.statusCode, r.json().error.code]).toEqual([409, 'TOTP_NOT_STARTED']);
    const p = await phone(u.id);
    const fromPhone = await post('/account/totp/start', bearer(p.access_token), { password: u.password });
    expect([fromPhone.statusCode, fromPhone.json().error.code]).toEqual([403, 'DEVICE_SCOPE']);
  });
});

describe('login with the second factor', () => {
  it('the password alone gives a challenge, not tokens; the code finishes the login (cookie flow too)', async () => {
    const u = await addUser(h, 'two-step', 'monitor');
    const { secret } = await enrol(h, u, bearer((await session(h, u)).access_token));
    const t = await challenge(h, u);
    expect(
      (await h.deps.pg.query("SELECT 1 FROM audit_log WHERE action = 'auth.login.mfa_challenge' AND target = $1", [u.username]))
        .rowCount,
    ).toBe(1);
    const done = await second(h, t, { code: totpCodeAt(secret, Date.now() + 30_000) }); // the next step: within the window
    expect(done.statusCode).toBe(200);
    const tokens = done.json();
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 900 });
    expect((await get('/auth/me', bearer(tokens.access_token))).json()).toMatchObject({
      username: 'two-step',
      totp_enabled: true,
    });
    expect((await post('/auth/refresh', {}, { refresh_token: tokens.refresh_token })).statusCode).toBe(200);
    const success = await auditOf(u.username, 'auth.login.success');
    expect(success.at(-1)!.details).toMatchObject({ mfa: 'totp' });
    // The challenge completes once.
    const again = await second(h, t, { code: await freshCode(h, u.id, secret) });
    expect([again.statusCode, again.json().error.code]).toEqual([401, 'INVALID_MFA_TOKEN']);

    // Browsers: the challenge remembers the cookie flow; the second step sets the cookies.
    const tc = await challenge(h, u, '127.0.0.1', true);
    const browser = await second(h, tc, { code: await freshCode(h, u.id, secret) });
    expect(browser.statusCode).toBe(200);
    expect(browser.json().refresh_token).toBeUndefined();
    const cookies = [browser.headers['set-cookie']].flat().join('\n');
    expect(cookies).toContain('watchpost_refresh=');
    expect(cookies).toContain(DEVICE_COOKIE_PREFIX);
  });

  it('a wrong code is refused, audited and counted by the login limiter; an unknown challenge is refused', async () => {
    const u = await addUser(h, 'fumbler', 'monitor');
    const { secret } = await enrol(h, u, bearer((await session(h, u)).access_token));
    const at = '198.51.100.31';
    const t = await challenge(h, u, at);
    const tries: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await second(h, t, { code: wrongCode(secret) }, at);
      tries.push(`${r.statusCode} ${r.json().error.code}`);
    }
    // Three wrong codes: as three wrong passwords, the (username, address) pair is locked...
    expect(tries).toEqual(['401 INVALID_CODE', '401 INVALID_CODE', '401 INVALID_CODE']);
    const failures = await auditOf(u.username, 'auth.mfa.failure');
    expect(failures).toHaveLength(3);
    expect(failures[0]!.details).toMatchObject({ method: 'totp', reason: 'invalid' });
    expect(failures[2]!.details).toMatchObject({ locked: ['pair'] });
    expect(await auditOf(u.username, 'auth.login.rate_limited')).toHaveLength(1);
    // ...even the right password from there, and the used-up challenge is over.
    const locked = await login(h, u.username, u.password, at);
    expect([locked.statusCode, locked.json().error.details.scope]).toEqual([429, 'pair']);
    expect((await second(h, t, { code: await freshCode(h, u.id, secret) }, at)).json().error.code).toBe('INVALID_MFA_TOKEN');
    // Elsewhere the user still gets in.
    const t2 = await challenge(h, u, '198.51.100.32');
    expect((await second(h, t2, { code: await freshCode(h, u.id, secret) }, '198.51.100.32')).statusCode).toBe(200);
    // A token that was never issued.
    const unknown = await second(h, 'A'.repeat(43), { code: '123456' });
    expect([unknown.statusCode, unknown.json().error.code]).toEqual([401, 'INVALID_MFA_TOKEN']);
    // Both a code and a recovery code, or neither: the schema refuses.
    expect((await second(h, t2, {})).statusCode).toBe(400);
    expect((await second(h, t2, { code: '123456', recovery_code: 'X'.repeat(24) })).statusCode).toBe(400);
  });

  it('a code once used is refused, and so is an older one', async () => {
    const u = await addUser(h, 'replayer', 'monitor');
    const { secret } = await enrol(h, u, bearer((await session(h, u)).access_token)); // spent: the step of now
    const next = totpCodeAt(secret, Date.now() + 30_000);
    expect((await second(h, await challenge(h, u), { code: next })).statusCode).toBe(200);
    // The same code again (a replay), and the code of now (older than the one used).
    for (const code of [next, totpCodeAt(secret)]) {
      const r = await second(h, await challenge(h, u), { code });
      expect([r.statusCode, r.json().error.code]).toEqual([401, 'INVALID_CODE']);
    }
    const failures = await auditOf(u.username, 'auth.mfa.failure');
    expect(failures.map((f) => f.details.reason)).toEqual(['replayed', 'replayed']);
  });

  it('a recovery code logs in once', async () => {
    const u = await addUser(h, 'lost-phone', 'monitor');
    const { recoveryCodes } = await enrol(h, u, bearer((await session(h, u)).access_token));
    // As typed from paper: lower case, spaces for dashes.
    const typed = recoveryCodes[3]!.toLowerCase().replace(/-/g, ' ');
    const r = await second(h, await challenge(h, u), { recovery_code: typed });
    expect(r.statusCode).toBe(200);
    expect((await auditOf(u.username, 'auth.login.success')).at(-1)!.details).toMatchObject({
      mfa: 'recovery_code',
      recovery_codes_left: 9,
    });
    const again = await second(h, await challenge(h, u), { recovery_code: recoveryCodes[3]! });
    expect([again.statusCode, again.json().error.code]).toEqual([401, 'INVALID_CODE']);
    expect((await get('/account/security', bearer(r.json().access_token))).json().recovery_codes_left).toBe(9);
  });

  it('a password change between the two steps voids the challenge', async () => {
    const u = await addUser(h, 'mid-change', 'monitor');
    const { secret } = await enrol(h, u, bearer((await session(h, u)).access_token));
    const t = await challenge(h, u);
    expect((await post(`/users/${u.id}/password`, adminAuth, { password: 'a brand new password' })).statusCode).toBe(204);
    const r = await second(h, t, { code: await freshCode(h, u.id, secret) });
    expect([r.statusCode, r.json().error.code]).toEqual([401, 'INVALID_MFA_TOKEN']);
  });
});

describe('removing the second factor', () => {
  it('disable needs the current password and a code (or a recovery code); then logins ask for the password only', async () => {
    const u = await addUser(h, 'disabler', 'monitor');
    const { secret, recoveryCodes } = await enrol(h, u, bearer((await session(h, u)).access_token));
    const tokens = (await second(h, await challenge(h, u), { code: await freshCode(h, u.id, secret) })).json();
    const auth = bearer(tokens.access_token);
    const noPassword = await post('/account/totp/disable', auth, {
      password: 'wrong password!',
      code: await freshCode(h, u.id, secret),
    });
    expect([noPassword.statusCode, noPassword.json().error.code]).toEqual([403, 'WRONG_PASSWORD']);
    const noCode = await post('/account/totp/disable', auth, { password: u.password, code: wrongCode(secret) });
    expect([noCode.statusCode, noCode.json().error.code]).toEqual([403, 'INVALID_CODE']);
    // From another address: three failures from one would lock this (username, address) pair.
    const usedCode = await post(
      '/account/totp/disable',
      auth,
      { password: u.password, recovery_code: 'ZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZ' },
      '198.51.100.61',
    );
    expect(usedCode.json().error.code).toBe('INVALID_CODE');
    expect((await auditOf(u.username, 'account.verify_failure')).map((a) => a.details.reason)).toEqual([
      'wrong_password',
      'invalid',
      'invalid',
    ]);
    const ok = await post('/account/totp/disable', auth, { password: u.password, recovery_code: recoveryCodes[0]! });
    expect(ok.statusCode).toBe(204);
    expect((await auditOf(u.username, 'account.totp.disable'))[0]!.details).toEqual({ method: 'recovery_code' });
    const row = (await h.deps.pg.query('SELECT totp_secret_enc, totp_enabled_at FROM users WHERE id = $1', [u.id])).rows[0];
    expect(row).toEqual({ totp_secret_enc: null, totp_enabled_at: null });
    expect((await h.deps.pg.query('SELECT 1 FROM user_recovery_codes WHERE user_id = $1', [u.id])).rowCount).toBe(0);
    expect((await login(h, u.username, u.password)).json().access_token).toBeDefined();
    const none = await post('/account/totp/disable', auth, { password: u.password, code: '123456' });
    expect([none.statusCode, none.json().error.code]).toEqual([409, 'TOTP_NOT_ENABLED']);
  });

  it("an admin resets a locked-out user's factor (not their own; monitors cannot)", async () => {
    const u = await addUser(h, 'locked-out', 'monitor');
    const monitorAuth = bearer((await session(h, u)).access_token);
    await enrol(h, u, monitorAuth);
    expect((await call(h, 'DELETE', `/users/${u.id}/totp`, monitorAuth)).statusCode).toBe(403);
    const self = await call(h, 'DELETE', `/users/${admin.id}/totp`, adminAuth);
    expect([self.statusCode, self.json().error.code]).toEqual([409, 'SELF_RESET']);
    expect((await call(h, 'DELETE', `/users/${u.id}/totp`, adminAuth)).statusCode).toBe(204);
    expect(await auditOf(u.username, 'user.totp_reset')).toEqual([{ actor: 'mfa-chief', details: {} }]);
    expect((await login(h, u.username, u.password)).json().access_token).toBeDefined();
    expect((await call(h, 'DELETE', `/users/${u.id}/totp`, adminAuth)).statusCode).toBe(404);
  });
});

describe('SERVICE_REQUIRE_TOTP_FOR_ADMINS', () => {
  it('an admin without a second factor logs in, but admin routes answer 403 MFA_ENROLMENT_REQUIRED until enrolment', async () => {
    const strict = await createApiHarness('api_mfa_required', { env: { SERVICE_REQUIRE_TOTP_FOR_ADMINS: 'true' } });
    try {
      const boss = await addUser(strict, 'strict-boss', 'admin');
      const watcher = await addUser(strict, 'strict-watcher', 'monitor');
      const auth = bearer((await session(strict, boss)).access_token);
      const refused = await call(strict, 'GET', '/users', auth);
      expect([refused.statusCode, refused.json().error.code]).toEqual([403, 'MFA_ENROLMENT_REQUIRED']);
      // No phone either: enrollment codes are an admin route (a device cannot skip the second factor).
      const codeRefused = await call(strict, 'POST', '/devices/enrollment-codes', auth, {});
      expect(codeRefused.json().error.code).toBe('MFA_ENROLMENT_REQUIRED');
      expect((await call(strict, 'GET', '/auth/me', auth)).json()).toMatchObject({
        mfa_enrolment_required: true,
        totp_enabled: false,
      });
      expect((await call(strict, 'GET', '/account/security', auth)).json()).toMatchObject({ totp_required: true });
      // Monitors are not concerned: their answer on an admin route stays FORBIDDEN, user routes work.
      const monitorAuth = bearer((await session(strict, watcher)).access_token);
      expect((await call(strict, 'GET', '/users', monitorAuth)).json().error.code).toBe('FORBIDDEN');
      expect((await call(strict, 'GET', '/auth/me', monitorAuth)).json().mfa_enrolment_required).toBe(false);

      // The enrolment routes stay open; once enrolled, the same session is an admin's.
      const { secret } = await enrol(strict, boss, auth);
      expect((await call(strict, 'GET', '/users', auth)).statusCode).toBe(200);
      expect((await call(strict, 'GET', '/auth/me', auth)).json().mfa_enrolment_required).toBe(false);
      // Removing the factor closes the admin routes again.
      const off = await call(strict, 'POST', '/account/totp/disable', auth, {
        password: boss.password,
        code: await freshCode(strict, boss.id, secret),
      });
      expect(off.statusCode).toBe(204);
      expect((await call(strict, 'GET', '/users', auth)).json().error.code).toBe('MFA_ENROLMENT_REQUIRED');
    } finally {
      await strict.close();
    }
  });
});

describe('self-service password change', () => {
  it('needs the current password; ends the other sessions, the phones and the device cookies; this session goes on', async () => {
    const u = await addUser(h, 'changer', 'monitor');
    const here = await session(h, u);
    const elsewhere = await session(h, u, '198.51.100.41');
    const cookie = await browserDeviceCookie(u, '198.51.100.42');
    const p = await phone(u.id);
    expect(await deviceStatus(p.device.id)).toBe('active');
    const auth = bearer(here.access_token);

    const wrong = await post('/account/password', auth, {
      current_password: 'wrong password!',
      new_password: 'a new long password',
    });
    expect([wrong.statusCode, wrong.json().error.code]).toEqual([403, 'WRONG_PASSWORD']);
    expect((await auditOf(u.username, 'account.verify_failure'))[0]!.details).toMatchObject({ purpose: 'password_change' });
    const short = await post('/account/password', auth, { current_password: u.password, new_password: 'short' });
    expect([short.statusCode, short.json().error.code]).toEqual([400, 'VALIDATION_FAILED']);
    const same = await post('/account/password', auth, { current_password: u.password, new_password: u.password });
    expect([same.statusCode, same.json().error.code]).toEqual([400, 'PASSWORD_UNCHANGED']);

    const changed = await post('/account/password', auth, { current_password: u.password, new_password: 'a new long password' });
    expect(changed.statusCode).toBe(200);
    // The other JSON session and the browser's: 2; the phone: 1.
    expect(changed.json()).toMatchObject({ token_type: 'Bearer', sessions_ended: 2, devices_signed_out: 1 });
    expect(await auditOf(u.username, 'account.password_change')).toEqual([
      { actor: 'changer', details: { sessions_ended: 2, devices_signed_out: 1 } },
    ]);

    // This session: the old access token is refused, the answer's works, its refresh token still rotates.
    expect((await get('/auth/me', auth)).statusCode).toBe(401);
    expect((await get('/auth/me', bearer(changed.json().access_token))).statusCode).toBe(200);
    const rotated = await post('/auth/refresh', {}, { refresh_token: here.refresh_token });
    expect(rotated.statusCode).toBe(200);
    expect((await get('/auth/me', bearer(rotated.json().access_token))).statusCode).toBe(200);
    // The other session ends at once: access and refresh.
    expect((await get('/auth/me', bearer(elsewhere.access_token))).statusCode).toBe(401);
    expect((await post('/auth/refresh', {}, { refresh_token: elsewhere.refresh_token })).statusCode).toBe(401);
    // The phone is signed out.
    expect((await get('/mobile/device', bearer(p.access_token))).statusCode).toBe(401);
    expect((await post('/auth/refresh', {}, { refresh_token: p.refresh_token })).statusCode).toBe(401);
    expect(await deviceStatus(p.device.id)).toBe('signed_out');
    // The old password is gone; the browser's device cookie no longer marks a known browser.
    expect((await login(h, u.username, u.password, '198.51.100.43')).statusCode).toBe(401);
    const withCookie = await browserLogin(u.username, 'a new long password', '198.51.100.44', cookie);
    expect(withCookie.statusCode).toBe(200);
    expect((await auditOf(u.username, 'auth.login.success')).at(-1)!.details.trusted).toBeUndefined();
  });
});

describe("an admin's password reset", () => {
  it("ends every session of the user, signs out their phones and voids their browsers' device cookies", async () => {
    const u = await addUser(h, 'reset-me', 'monitor');
    const s = await session(h, u);
    const cookie = await browserDeviceCookie(u, '198.51.100.51');
    const p = await phone(u.id);
    expect((await post(`/users/${u.id}/password`, adminAuth, { password: 'reset by the admin' })).statusCode).toBe(204);
    expect((await get('/auth/me', bearer(s.access_token))).statusCode).toBe(401);
    expect((await post('/auth/refresh', {}, { refresh_token: s.refresh_token })).statusCode).toBe(401);
    expect((await get('/mobile/device', bearer(p.access_token))).statusCode).toBe(401);
    expect((await post('/auth/refresh', {}, { refresh_token: p.refresh_token })).statusCode).toBe(401);
    expect(await deviceStatus(p.device.id)).toBe('signed_out');
    const withCookie = await browserLogin(u.username, 'reset by the admin', '198.51.100.52', cookie);
    expect(withCookie.statusCode).toBe(200);
    expect((await auditOf(u.username, 'auth.login.success')).at(-1)!.details.trusted).toBeUndefined();
  });
});
