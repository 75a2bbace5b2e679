// Route x role matrix generated from the app's own route table, JWT attacks, and the per-request
// re-check of the user in Postgres.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyPluginAsync } from 'fastify';
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, UnsecuredJWT } from 'jose';
import { createApiKey } from '@watchpost/core';
import { addUser, createApiHarness, login, TEST_JWT_SECRET, type ApiHarness } from '@watchpost/testkit/api';
import { JWT_AUDIENCE, JWT_ISSUER, signAccessToken } from './auth/jwt.ts';
import { buildApiApp } from './app.ts';
import type { Access } from './types.ts';
import { enrollPhone as enrollPhoneFor } from './test-helpers/api-calls.ts';

// A test-only route flagged for the SSE token query parameter, so the mechanism is covered even
// before the real stream route is listed.
const sseProbe: FastifyPluginAsync = async (app) => {
  app.get('/__test/sse', { config: { access: 'user', sseToken: true }, schema: { tags: ['test'] } }, async (req) => ({
    user: req.user!.username,
  }));
};
const boom: FastifyPluginAsync = async (app) => {
  app.get('/__test/boom', { config: { access: 'public' }, schema: { tags: ['test'] } }, async () => {
    throw new Error('relation "secrets" does not exist (user=postgres password=hunter2 host=10.1.2.3)');
  });
  app.get('/__test/down', { config: { access: 'public' }, schema: { tags: ['test'] } }, async () => {
    throw Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:5432 (user=postgres password=hunter2)'), {
      code: 'ECONNREFUSED',
    });
  });
};

type Actor = 'anonymous' | 'agent' | 'monitor' | 'admin' | 'monitorDevice' | 'adminDevice';
const ACTORS: Actor[] = ['anonymous', 'agent', 'monitor', 'admin', 'monitorDevice', 'adminDevice'];

/** The mobile surface (api/MOBILE.md): the only token-checked routes a device's token may call. */
const MOBILE_SURFACE = [
  'GET /api/v1/events',
  'GET /api/v1/events/:id',
  'GET /api/v1/problems',
  'GET /api/v1/problems/:id',
  'POST /api/v1/problems/:id/acknowledge',
  'POST /api/v1/problems/:id/resolve',
  'GET /api/v1/dashboards/summary',
  'GET /api/v1/stream/events',
  'GET /api/v1/mobile/device',
  'GET /api/v1/mobile/push/vapid-public-key',
  'POST /api/v1/mobile/push-subscriptions',
  'DELETE /api/v1/mobile/push-subscriptions',
];
/** Public routes a device uses (tag `mobile` too). */
const MOBILE_PUBLIC = ['POST /api/v1/mobile/enroll', 'POST /api/v1/auth/refresh', 'POST /api/v1/auth/logout'];

/** The policy: which status (and error code) the access layer must give an actor on a route. */
function expected(route: { method: string; url: string; access: Access }, actor: Actor): 'allowed' | 401 | 403 | 'DEVICE_SCOPE' {
  const { access } = route;
  if (access === 'public') return 'allowed';
  if (access === 'agent') return actor === 'agent' ? 'allowed' : 401;
  if (actor === 'anonymous' || actor === 'agent') return 401;
  const device = actor === 'monitorDevice' || actor === 'adminDevice';
  // A device's token: the mobile surface only, whatever its user's role (checked before the role).
  if (device && !MOBILE_SURFACE.includes(`${route.method} ${route.url}`)) return 'DEVICE_SCOPE';
  if (access === 'user') return 'allowed';
  return actor === 'admin' || actor === 'adminDevice' ? 'allowed' : 403;
}

let h: ApiHarness;
const headers: Record<Actor, Record<string, string>> = {
  anonymous: {},
  agent: {},
  monitor: {},
  admin: {},
  monitorDevice: {},
  adminDevice: {},
};
let adminPhone: { access_token: string; refresh_token: string; device: { id: number } };
let monitorToken = '';
let monitorId = 0;
let adminId = 0;

beforeAll(async () => {
  h = await createApiHarness('api_access', { accessProbe: true, extraRoutes: [sseProbe, boom] });
  const admin = await addUser(h, 'root', 'admin');
  const monitor = await addUser(h, 'watcher', 'monitor');
  monitorId = monitor.id;
  adminId = admin.id;
  const { key } = await createApiKey(h.deps.pg, 'matrix-agent');
  headers.agent = { 'x-api-key': key };
  const [a, m] = await Promise.all([login(h, admin.username, admin.password), login(h, monitor.username, monitor.password)]);
  headers.admin = { authorization: `Bearer ${a.json().access_token}` };
  monitorToken = m.json().access_token;
  headers.monitor = { authorization: `Bearer ${monitorToken}` };
  // Phones: one enrolled with the admin's own code ({}), one for the monitor.
  const enrollPhone = async (body: object) => {
    const { enrolled } = await enrollPhoneFor(h.app, headers.admin, body);
    expect(enrolled.statusCode).toBe(200);
    return enrolled.json() as { access_token: string; refresh_token: string; device: { id: number } };
  };
  adminPhone = await enrollPhone({});
  headers.adminDevice = { authorization: `Bearer ${adminPhone.access_token}` };
  headers.monitorDevice = { authorization: `Bearer ${(await enrollPhone({ user_id: monitorId })).access_token}` };
});
afterAll(async () => h?.close());

describe('route x role matrix (from the registered routes)', () => {
  it('covers the route table', () => {
    const urls = new Set(h.routes.map((r) => `${r.method} ${r.url}`));
    for (const r of [
      'POST /api/v1/auth/login',
      'GET /api/v1/users',
      'PUT /api/v1/settings/event-types/:type',
      'GET /api/v1/audit',
    ]) {
      expect(urls).toContain(r);
    }
    expect(h.routes.length).toBeGreaterThan(15);
  });

  it('every route answers every actor as config.access says', async () => {
    const mismatches: string[] = [];
    let checked = 0;
    for (const route of h.routes) {
      if (route.method === 'HEAD') continue;
      const url = route.url.replace(/:[A-Za-z_]+/g, '1').replace(/\*$/, 'x');
      for (const actor of ACTORS) {
        const res = await h.app.inject({
          method: route.method as 'GET',
          url,
          headers: { ...headers[actor], 'x-access-probe': '1' },
        });
        const want = expected(route, actor);
        const got =
          res.statusCode === 299
            ? 'allowed'
            : res.statusCode === 403 && res.json().error.code === 'DEVICE_SCOPE'
              ? 'DEVICE_SCOPE'
              : res.statusCode;
        checked++;
        if (got !== want)
          mismatches.push(`${route.method} ${route.url} [${route.access}] as ${actor}: expected ${want}, got ${got}`);
        if (got === 401 || got === 403) expect(res.json().error.code).toBe(got === 401 ? 'UNAUTHENTICATED' : 'FORBIDDEN');
      }
    }
    expect(mismatches).toEqual([]);
    expect(checked).toBeGreaterThan(60);
  });

  it('the mobile surface is exactly the declared list, tagged `mobile` in OpenAPI and nothing else is', async () => {
    const registered = new Set(h.routes.map((r) => `${r.method} ${r.url}`));
    for (const r of [...MOBILE_SURFACE, ...MOBILE_PUBLIC]) expect(registered, r).toContain(r);
    const doc = (await h.app.inject({ url: '/api/v1/openapi.json' })).json();
    const tagged: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { tags?: string[] }>>))
      for (const [method, op] of Object.entries(item))
        if (op.tags?.includes('mobile')) tagged.push(`${method.toUpperCase()} ${path}`);
    const asPath = (r: string) => r.replace(/:([A-Za-z_]+)/g, '{$1}');
    expect(tagged.sort()).toEqual([...MOBILE_SURFACE, ...MOBILE_PUBLIC].map(asPath).sort());
  });

  it('the device scope is in the token claims and in the session: losing either keeps the scope', async () => {
    const claims = JSON.parse(Buffer.from(adminPhone.access_token.split('.')[1]!, 'base64url').toString());
    expect(claims.dev).toBe(adminPhone.device.id);
    const users = (token: string) => h.app.inject({ url: '/api/v1/users', headers: { authorization: `Bearer ${token}` } });
    // signed without the claim (as a token of before the claim existed): the session row still says device
    const noClaim = await signAccessToken(
      TEST_JWT_SECRET,
      { userId: adminId, role: 'admin', tokenVersion: 1, sessionId: claims.sid },
      600,
    );
    const r = await users(noClaim);
    expect([r.statusCode, r.json().error.code]).toEqual([403, 'DEVICE_SCOPE']);
    // a device claim on a browser session, or naming another device, is no token of ours: refused
    const wrongDevice = await signAccessToken(
      TEST_JWT_SECRET,
      { userId: adminId, role: 'admin', tokenVersion: 1, sessionId: adminSid(), deviceId: adminPhone.device.id },
      600,
    );
    expect((await users(wrongDevice)).statusCode).toBe(401);
  });

  it('accepts the access_token query parameter only on routes flagged sseToken', async () => {
    const flagged = h.routes.filter((r) => r.sseToken && r.method === 'GET');
    const others = h.routes.filter((r) => !r.sseToken && r.method === 'GET' && r.access === 'user');
    expect(flagged.length).toBeGreaterThan(0);
    expect(others.length).toBeGreaterThan(0);
    for (const r of flagged) {
      const url = r.url.replace(/:[A-Za-z_]+/g, '1');
      const res = await h.app.inject({ url: `${url}?access_token=${monitorToken}`, headers: { 'x-access-probe': '1' } });
      expect(res.statusCode, r.url).toBe(299);
      const bad = await h.app.inject({ url: `${url}?access_token=nope`, headers: { 'x-access-probe': '1' } });
      expect(bad.statusCode, r.url).toBe(401);
    }
    for (const r of others) {
      const url = r.url.replace(/:[A-Za-z_]+/g, '1');
      const res = await h.app.inject({ url: `${url}?access_token=${monitorToken}`, headers: { 'x-access-probe': '1' } });
      expect(res.statusCode, r.url).toBe(401);
    }
  });

  it('serves the API docs under a Content-Security-Policy that swagger-ui works with', async () => {
    const page = await h.app.inject({ url: '/api/docs/' });
    expect(page.statusCode).toBe(200);
    const csp = String(page.headers['content-security-policy'] ?? '');
    const directive = (name: string) =>
      csp
        .split(';')
        .map((d) => d.trim())
        .find((d) => d.startsWith(`${name} `)) ?? '';
    expect(directive('default-src')).toBe("default-src 'self'");
    expect(directive('script-src')).toBe("script-src 'self'");
    expect(directive('object-src')).toBe("object-src 'none'");
    expect(directive('frame-ancestors')).toBe("frame-ancestors 'none'");
    expect(directive('base-uri')).toBe("base-uri 'self'");
    expect(csp).not.toMatch(/unsafe-eval|https:|\*/);
    // No inline script (the policy refuses them): every script and style is a file of this server, and loads.
    expect(page.body).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/i);
    const assets = [...page.body.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((m) => new URL(m[1]!, 'http://x/api/docs/'));
    expect(assets.length).toBeGreaterThanOrEqual(5);
    for (const a of assets) {
      expect(a.origin).toBe('http://x');
      const res = await h.app.inject({ url: a.pathname });
      expect([a.pathname, res.statusCode]).toEqual([a.pathname, 200]);
    }
    // The initializer reads the document from this server.
    const init = await h.app.inject({ url: '/api/docs/static/swagger-initializer.js' });
    expect(init.body).toContain("resolveUrl('./json')");
    expect((await h.app.inject({ url: '/api/docs/json' })).json().openapi).toBe('3.0.3');
  });

  it('keeps /health public and documents every route in OpenAPI with its security', async () => {
    expect((await h.app.inject({ url: '/health' })).statusCode).toBe(200);
    expect((await h.app.inject({ url: '/api/docs/' })).statusCode).toBe(200);
    const doc = (await h.app.inject({ url: '/api/v1/openapi.json' })).json();
    for (const r of h.routes) {
      if (r.method === 'HEAD' || r.url === '/api/v1/openapi.json') continue;
      const path = r.url.replace(/:([A-Za-z_]+)/g, '{$1}');
      const op = doc.paths[path]?.[r.method.toLowerCase()];
      expect(op, `${r.method} ${path} in OpenAPI`).toBeDefined();
      expect(op.tags?.length, `${r.method} ${path} tags`).toBeGreaterThan(0);
      if (r.access === 'public') expect(op.security ?? []).toEqual([]);
      else expect(op.security).toEqual([r.access === 'agent' ? { agentKey: [] } : { bearer: [] }]);
      if (r.access !== 'public') expect(op.responses['401']).toBeDefined();
      if (r.access === 'admin') expect(op.responses['403']).toBeDefined();
    }
  });
});

describe('errors', () => {
  it('a 5xx never leaks internals', async () => {
    const res = await h.app.inject({ url: '/api/v1/__test/boom' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: { code: 'INTERNAL', message: 'internal error' } });
    expect(res.body).not.toMatch(/hunter2|ECONNREFUSED|10\.1\.2\.3|secrets/);
    // A store that is away is a 503 with Retry-After, and leaks nothing either.
    const down = await h.app.inject({ url: '/api/v1/__test/down' });
    expect([down.statusCode, down.json().error.code, down.headers['retry-after']]).toEqual([503, 'UNAVAILABLE', '5']);
    expect(down.body).not.toMatch(/hunter2|ECONNREFUSED|10\.1\.2\.3/);
  });

  it('invalid input gets VALIDATION_FAILED with pointers; bad JSON gets BAD_REQUEST', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username: 'x' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_FAILED');
    expect(res.json().error.details[0]).toMatchObject({ in: 'body' });
    const bad = await h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"username":',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('BAD_REQUEST');
  });

  it('an app with a route that declares no access refuses to start', async () => {
    const app = Fastify({ logger: false });
    const noAccess: FastifyPluginAsync = async (a) => {
      a.get('/__test/open', async () => 'oops');
    };
    const start = async () => {
      await app.register(buildApiApp(h.deps, { extraRoutes: [noAccess] }));
      await app.ready();
    };
    await expect(start()).rejects.toThrow(/GET \/api\/v1\/__test\/open declares no config.access/);
    await app.close().catch(() => {});
  });
});

/** The session id of the admin's real login (forged tokens below name it, so only the attack makes them fail). */
const adminSid = () =>
  (JSON.parse(Buffer.from(headers.admin!.authorization!.split('.')[1]!, 'base64url').toString()) as { sid: string }).sid;
/** A genuinely signed 10-minute token with the admin role in the admin's session, naming `userId`. */
const adminRoleToken = (userId: number) =>
  signAccessToken(TEST_JWT_SECRET, { userId, role: 'admin', tokenVersion: 1, sessionId: adminSid() }, 600);

describe('JWT attacks are refused with 401', () => {
  const me = (token: string) => h.app.inject({ url: '/api/v1/auth/me', headers: { authorization: `Bearer ${token}` } });
  const claims = () => ({ role: 'admin', tv: 1 });
  const base = (jwt: SignJWT) =>
    jwt.setSubject('1').setIssuer(JWT_ISSUER).setAudience(JWT_AUDIENCE).setIssuedAt().setExpirationTime('10m');

  it('the genuine token works (control)', async () => {
    const token = await adminRoleToken(adminId);
    expect((await me(token)).statusCode).toBe(200);
    // The forged tokens below name the same admin, so only the attack itself makes them fail.
    expect(adminId).toBe(1);
  });

  it.each<[string, () => Promise<string>]>([
    [
      'alg none',
      async () =>
        new UnsecuredJWT(claims())
          .setSubject('1')
          .setIssuer(JWT_ISSUER)
          .setAudience(JWT_AUDIENCE)
          .setIssuedAt()
          .setExpirationTime('10m')
          .encode(),
    ],
    [
      'alg none with a signature part',
      async () =>
        `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${(await signAccessToken(TEST_JWT_SECRET, { userId: 1, role: 'admin', tokenVersion: 1, sessionId: adminSid() }, 600)).split('.')[1]}.`,
    ],
    [
      'wrong key',
      async () =>
        base(new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' })).sign(
          new TextEncoder().encode('another-secret-another-secret-another-secret'),
        ),
    ],
    [
      'RS256 (HS/RS confusion)',
      async () =>
        base(new SignJWT(claims()).setProtectedHeader({ alg: 'RS256' })).sign(
          generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
        ),
    ],
    [
      'HS256 with an RSA public key as the secret',
      async () => {
        const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({
          type: 'spki',
          format: 'pem',
        }) as string;
        return base(new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' })).sign(new TextEncoder().encode(pem));
      },
    ],
    [
      'HS512 with the right key',
      async () => base(new SignJWT(claims()).setProtectedHeader({ alg: 'HS512' })).sign(TEST_JWT_SECRET),
    ],
    [
      'expired',
      async () =>
        signAccessToken(
          TEST_JWT_SECRET,
          { userId: 1, role: 'admin', tokenVersion: 1, sessionId: adminSid() },
          60,
          new Date(Date.now() - 3600_000),
        ),
    ],
    [
      'wrong audience',
      async () =>
        new SignJWT(claims())
          .setProtectedHeader({ alg: 'HS256' })
          .setSubject('1')
          .setIssuer(JWT_ISSUER)
          .setAudience('other')
          .setIssuedAt()
          .setExpirationTime('10m')
          .sign(TEST_JWT_SECRET),
    ],
    [
      'no expiry',
      async () =>
        new SignJWT(claims())
          .setProtectedHeader({ alg: 'HS256' })
          .setSubject('1')
          .setIssuer(JWT_ISSUER)
          .setAudience(JWT_AUDIENCE)
          .setIssuedAt()
          .sign(TEST_JWT_SECRET),
    ],
    ['garbage', async () => 'not.a.jwt'],
  ])('%s', async (_name, make) => {
    const res = await me(await make());
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('UNAUTHENTICATED');
  });

  it('a tampered role claim (monitor token edited to admin) is refused', async () => {
    const [header, payload, sig] = monitorToken.split('.') as [string, string, string];
    const p = JSON.parse(Buffer.from(payload, 'base64url').toString());
    expect(p.role).toBe('monitor');
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...p, role: 'admin' })).toString('base64url')}.${sig}`;
    expect((await me(forged)).statusCode).toBe(401);
    expect((await h.app.inject({ url: '/api/v1/users', headers: { authorization: `Bearer ${forged}` } })).statusCode).toBe(401);
  });

  it('a correctly signed token whose role differs from the database is refused', async () => {
    const token = await adminRoleToken(monitorId);
    expect((await me(token)).statusCode).toBe(401);
  });
});
