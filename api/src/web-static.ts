// Serves the web UI (web/dist, built by `npm run build:web`) at `/` with an SPA fallback: any GET that
// is not a file and not under /api/ gets index.html, so deep links and reloads work. Spec rule 8: the
// fallback never leaves the served folder. The raw path is decoded once; a NUL, a backslash or a `.`/`..`
// segment is refused with 404 (so `%2e%2e`, `%5c` and `%00` are too); a double-encoded `%252e%252e`
// decodes to a literal name that stays inside the folder; the resolved path and its realpath (symlinks)
// must both be inside it. Hashed assets under /assets/ are immutable; index.html is revalidated on every
// load; every answer carries a Content-Security-Policy without inline scripts.
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';

export const DEFAULT_WEB_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));

// Naive UI writes its styles at run time (style elements and attributes), hence 'unsafe-inline' for
// styles only; scripts come from this origin's files and nowhere else.
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

/** The file under `root` that `urlPath` names, or null when the path is refused. Pure apart from nothing: no I/O. */
export function resolveInside(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const segments = decoded.split('/');
  if (segments.some((s) => s === '.' || s === '..')) return null;
  const full = resolve(root, `.${decoded.startsWith('/') ? '' : '/'}${decoded}`);
  return full === root || full.startsWith(root + sep) ? full : null;
}

function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY');
}

const notFoundBody = { error: { code: 'NOT_FOUND', message: 'route not found' } };

export interface WebStaticOptions {
  /** The built UI; default web/dist of this checkout. */
  dir?: string;
}

export const webStatic: FastifyPluginAsync<WebStaticOptions> = async (app, opts) => {
  const root = resolve(opts.dir ?? DEFAULT_WEB_DIR);
  let realRoot: string | null = null;
  const rootReal = async () => (realRoot ??= await realpath(root).catch(() => null));

  const fileAt = async (path: string): Promise<string | null> => {
    const real = await realpath(path).catch(() => null);
    const base = await rootReal();
    if (!real || !base || !(real === base || real.startsWith(base + sep))) return null;
    const st = await stat(real).catch(() => null);
    return st?.isFile() ? real : null;
  };

  const send = (reply: FastifyReply, file: string, cache: string) =>
    securityHeaders(reply)
      .header('cache-control', cache)
      .type(TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream')
      .send(createReadStream(file));

  const handler = async (req: { raw: { url?: string } }, reply: FastifyReply) => {
    const path = (req.raw.url ?? '/').split('?')[0]!.split('#')[0]!;
    // Unknown API paths keep the API's JSON 404 (the SPA never answers for them).
    if (path === '/api' || path.startsWith('/api/')) return reply.code(404).send(notFoundBody);
    const target = resolveInside(root, path);
    if (target === null) return securityHeaders(reply).code(404).send(notFoundBody);
    const index = await fileAt(resolve(root, 'index.html'));
    if (!index) {
      const msg =
        'The watchpost web UI is not built. Run `npm run build:web` (npm run up does it), then reload. The API is at /api/v1/.';
      return securityHeaders(reply)
        .code(path === '/' ? 200 : 404)
        .header('cache-control', REVALIDATE)
        .type('text/plain; charset=utf-8')
        .send(msg);
    }
    const file = target === root ? null : await fileAt(target);
    if (file && file !== index) return send(reply, file, path.startsWith('/assets/') ? IMMUTABLE : REVALIDATE);
    // A missing file with an extension (or under /assets/) is a 404, not the app: a stale hashed name
    // must not come back as HTML.
    if (path.startsWith('/assets/') || extname(path) !== '') return securityHeaders(reply).code(404).send(notFoundBody);
    return send(reply, index, REVALIDATE);
  };

  app.get('/', { schema: { hide: true } }, handler);
  app.get('/*', { schema: { hide: true } }, handler);
};
