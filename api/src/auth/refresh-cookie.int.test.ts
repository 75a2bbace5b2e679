// The browser's cookie flow: login with refresh_cookie sets an httpOnly SameSite=Strict cookie scoped to
// the auth paths and leaves the refresh token out of the body; refresh and logout use and rotate it;
// the JSON flow is unchanged for other clients.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createApiHarness, type ApiHarness } from '@watchpost/testkit/api';
import { REFRESH_COOKIE } from './refresh-cookie.ts';

let h: ApiHarness;
let user: Awaited<ReturnType<typeof addUser>>;

beforeAll(async () => {
  h = await createApiHarness('api_cookie');
  user = await addUser(h, 'browser', 'monitor');
});
afterAll(async () => h?.close());

function cookieOf(setCookie: string | string[] | undefined): { value: string; attrs: string } {
  const line = [setCookie ?? []].flat().find((c) => c.startsWith(`${REFRESH_COOKIE}=`));
  if (!line) throw new Error('no refresh cookie set');
  const [pair, ...attrs] = line.split(';');
  return { value: pair!.slice(REFRESH_COOKIE.length + 1), attrs: attrs.join(';') };
}

const post = (url: string, payload: object, cookie?: string, headers: Record<string, string> = {}) =>
  h.app.inject({
    method: 'POST',
    url,
    payload,
    headers: { ...headers, ...(cookie ? { cookie: `${REFRESH_COOKIE}=${cookie}` } : {}) },
  });

describe('refresh token in an httpOnly cookie', () => {
  it('login sets the cookie (HttpOnly, SameSite=Strict, auth path) and leaves the token out of the body', async () => {
    const r = await post('/api/v1/auth/login', { username: user.username, password: user.password, refresh_cookie: true });
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body.access_token).toBeTruthy();
    expect(body).not.toHaveProperty('refresh_token');
    expect(r.headers['cache-control']).toBe('no-store');
    const c = cookieOf(r.headers['set-cookie']);
    expect(c.value).toMatch(/^[\w-]{40,}$/);
    expect(c.attrs).toContain('HttpOnly');
    expect(c.attrs).toContain('SameSite=Strict');
    expect(c.attrs).toContain('Path=/api/v1/auth');
    expect(c.attrs).toContain(`Max-Age=${30 * 86400}`);
    expect(c.attrs).not.toContain('Secure'); // plain http here; https gets Secure
  });

  it('refresh with {} uses the cookie and rotates it; the old cookie is then spent', async () => {
    const login = await post('/api/v1/auth/login', { username: user.username, password: user.password, refresh_cookie: true });
    const first = cookieOf(login.headers['set-cookie']).value;
    const r = await post('/api/v1/auth/refresh', {}, first);
    expect(r.statusCode).toBe(200);
    expect(r.json()).not.toHaveProperty('refresh_token');
    const second = cookieOf(r.headers['set-cookie']).value;
    expect(second).not.toBe(first);
    const me = await h.app.inject({ url: '/api/v1/auth/me', headers: { authorization: `Bearer ${r.json().access_token}` } });
    expect(me.json().username).toBe(user.username);
    // Reusing the spent cookie revokes the family: the successor dies too.
    expect((await post('/api/v1/auth/refresh', {}, first)).statusCode).toBe(401);
    expect((await post('/api/v1/auth/refresh', {}, second)).statusCode).toBe(401);
  });

  it('https (behind a trusted proxy) adds Secure', async () => {
    const hs = await createApiHarness('api_cookie_tls', { env: { SERVICE_TRUST_PROXY: '127.0.0.1' } });
    try {
      const u = await addUser(hs, 'tls', 'monitor');
      const r = await hs.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { username: u.username, password: u.password, refresh_cookie: true },
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(cookieOf(r.headers['set-cookie']).attrs).toContain('Secure');
    } finally {
      await hs.close();
    }
  });

  it('without a cookie or body token, refresh is 401; logout clears the cookie and ends the session', async () => {
    expect((await post('/api/v1/auth/refresh', {})).statusCode).toBe(401);
    const login = await post('/api/v1/auth/login', { username: user.username, password: user.password, refresh_cookie: true });
    const c = cookieOf(login.headers['set-cookie']).value;
    const out = await post('/api/v1/auth/logout', {}, c);
    expect(out.statusCode).toBe(204);
    expect(cookieOf(out.headers['set-cookie']).attrs).toContain('Max-Age=0');
    expect((await post('/api/v1/auth/refresh', {}, c)).statusCode).toBe(401);
  });

  it('the JSON flow is unchanged: the token in the body, no cookie', async () => {
    const r = await post('/api/v1/auth/login', { username: user.username, password: user.password });
    expect(r.json().refresh_token).toBeTruthy();
    expect(r.headers['set-cookie']).toBeUndefined();
    const next = await post('/api/v1/auth/refresh', { refresh_token: r.json().refresh_token });
    expect(next.statusCode).toBe(200);
    expect(next.json().refresh_token).toBeTruthy();
    expect(next.headers['set-cookie']).toBeUndefined();
  });
});
