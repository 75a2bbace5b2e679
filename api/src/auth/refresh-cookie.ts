// The browser's refresh token: an httpOnly, SameSite=Strict cookie scoped to the auth paths, so page
// scripts never see it and other sites cannot send it. The JSON flow (refresh_token in bodies) stays
// for other clients; a client picks the cookie with `refresh_cookie: true` at login.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TokenPair } from './tokens.ts';

export const REFRESH_COOKIE = 'watchpost_refresh';
/** Only the refresh and logout calls need it (login sets it). */
export const REFRESH_COOKIE_PATH = '/api/v1/auth';

/** The refresh token from the request's Cookie header, if any. */
export function refreshCookie(req: FastifyRequest): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === REFRESH_COOKIE) {
      const value = part.slice(eq + 1).trim();
      // Our tokens are base64url: anything else is not ours.
      return /^[\w-]{1,512}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

function cookie(req: FastifyRequest, value: string, maxAge: number): string {
  // Secure whenever the client came over https (also behind a trusted proxy); browsers accept
  // non-Secure cookies on plain http://127.0.0.1 for local use.
  const secure = req.protocol === 'https' ? '; Secure' : '';
  return `${REFRESH_COOKIE}=${value}; Path=${REFRESH_COOKIE_PATH}; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure}`;
}

/** Moves the refresh token of `tokens` into the cookie; the body keeps everything else. */
export function setRefreshCookie(req: FastifyRequest, reply: FastifyReply, tokens: TokenPair): Omit<TokenPair, 'refresh_token'> {
  const { refresh_token, ...rest } = tokens;
  reply.header('set-cookie', cookie(req, refresh_token, tokens.refresh_expires_in));
  reply.header('cache-control', 'no-store');
  return rest;
}

export function clearRefreshCookie(req: FastifyRequest, reply: FastifyReply): void {
  reply.header('set-cookie', cookie(req, '', 0));
}
