// The web UI's static serving: SPA fallback, cache headers, CSP, and spec rule 8 (no path traversal).
import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, resolveInside, webStatic } from './web-static.ts';

const SECRET = 'TOP-SECRET-OUTSIDE-DIST';
let tmp: string;
let app: FastifyInstance;
let bare: FastifyInstance;
let port = 0;

/** One request exactly as written (no client-side URL normalisation, unlike inject() or fetch()). */
function rawGet(path: string): Promise<{ status: number; text: string }> {
  return new Promise((done, fail) => {
    const sock = connect(port, '127.0.0.1');
    let buf = '';
    sock.on('data', (d) => (buf += d.toString('latin1')));
    sock.on('error', fail);
    sock.on('close', () => done({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(buf)?.[1] ?? 0), text: buf }));
    sock.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`, 'latin1');
  });
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'web-static-'));
  const dist = join(tmp, 'dist');
  mkdirSync(join(dist, 'assets'), { recursive: true });
  writeFileSync(join(tmp, 'secret.txt'), SECRET);
  writeFileSync(join(tmp, 'dist-secret.html'), SECRET);
  writeFileSync(join(dist, 'index.html'), '<!doctype html><title>app</title><div id="app"></div>');
  writeFileSync(join(dist, 'assets', 'index-AbC123.js'), 'console.log(1)');
  writeFileSync(join(dist, 'robots.txt'), 'User-agent: *');
  symlinkSync(join(tmp, 'secret.txt'), join(dist, 'link.txt'));
  symlinkSync(tmp, join(dist, 'up'));
  app = Fastify({ logger: false });
  await app.register(webStatic, { dir: dist });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as { port: number }).port;
  bare = Fastify({ logger: false });
  await bare.register(webStatic, { dir: join(tmp, 'not-built') });
  await bare.ready();
});

afterAll(async () => {
  await app.close();
  await bare.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('web UI static files', () => {
  it('serves index.html at / with no-cache and a CSP without inline scripts', async () => {
    const res = await app.inject('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toBe(CONTENT_SECURITY_POLICY);
    const scriptSrc = csp.split(';').find((d) => d.trim().startsWith('script-src'))!;
    expect(scriptSrc).not.toContain('unsafe-inline');
    expect(scriptSrc).not.toContain('unsafe-eval');
    expect(csp).toContain("object-src 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('falls back to index.html for app routes (deep links, reloads with a query)', async () => {
    for (const url of ['/events?page=3&severity=high', '/hosts/12', '/problems/abc', '/settings/users']) {
      const res = await app.inject(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toContain('<div id="app">');
      expect(res.headers['cache-control']).toBe('no-cache');
    }
  });

  it('serves hashed assets as immutable with their type; a missing asset is 404, not the app', async () => {
    const js = await app.inject('/assets/index-AbC123.js');
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const other = await app.inject('/robots.txt');
    expect(other.headers['cache-control']).toBe('no-cache');
    expect((await app.inject('/assets/index-Old999.js')).statusCode).toBe(404);
    expect((await app.inject('/favicon.ico')).statusCode).toBe(404);
  });

  it('leaves unknown API paths to a JSON 404', async () => {
    const res = await app.inject('/api/v1/no-such-route');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'route not found' } });
  });

  it('never serves a file outside its folder (encoded, double-encoded, backslashes, NUL, symlinks)', async () => {
    const attempts = [
      '/../secret.txt',
      '/..%2fsecret.txt',
      '/%2e%2e/secret.txt',
      '/%2E%2E/secret.txt',
      '/%2e%2e%2fsecret.txt',
      '/.%2e/secret.txt',
      '/%252e%252e/secret.txt',
      '/%252e%252e%252fsecret.txt',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/..%5csecret.txt',
      '/%5c..%5csecret.txt',
      '/..%255csecret.txt',
      '/..\\secret.txt',
      '/assets\\..\\..\\secret.txt',
      '/index.html%00',
      '/%00../secret.txt',
      '/secret.txt%00.js',
      '/%c0%ae%c0%ae/secret.txt',
      '/link.txt',
      '/up/secret.txt',
      '/up/dist-secret.html',
      '//..//secret.txt',
      '/%2e%2e/dist-secret',
    ];
    for (const url of attempts) {
      const res = await rawGet(url);
      expect(res.text, url).not.toContain(SECRET);
      expect([400, 404], `${url} -> ${res.status}`).toContain(res.status);
    }
    // The check itself: a sound request over the same socket path gets the asset.
    expect((await rawGet('/assets/index-AbC123.js')).status).toBe(200);
  });

  it('resolveInside refuses dot segments, backslashes and NUL after one decoding', () => {
    const root = '/srv/dist';
    expect(resolveInside(root, '/assets/a.js')).toBe('/srv/dist/assets/a.js');
    expect(resolveInside(root, '/')).toBe('/srv/dist');
    expect(resolveInside(root, '/%252e%252e/x')).toBe('/srv/dist/%2e%2e/x');
    for (const p of ['/../x', '/%2e%2e/x', '/a/%2E%2E/%2E%2E/x', '/..%5cx', '/a\\b', '/x%00', '/%', '/./x'])
      expect(resolveInside(root, p), p).toBeNull();
  });

  it('says how to build the UI when web/dist is missing (the API still runs)', async () => {
    const res = await bare.inject('/');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('npm run build:web');
    expect((await bare.inject('/events')).statusCode).toBe(404);
  });
});
