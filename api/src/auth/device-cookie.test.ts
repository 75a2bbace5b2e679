// The login device cookie is signed for its user's token version: a password change or reset (and a
// deactivation) bumps the version, and every cookie set before stops counting as a known browser.
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { deviceCookieKey, deviceCookieName, deviceCookieValue, validDeviceCookie } from './device-cookie.ts';

const key = deviceCookieKey(new TextEncoder().encode('unit-test-secret-unit-test-secret-0123'));
const withCookie = (username: string, value: string) =>
  ({ headers: { cookie: `other=1; ${deviceCookieName(key, username)}=${value}` } }) as unknown as FastifyRequest;

describe('device cookie', () => {
  it('is valid for its user at the token version it was set with', () => {
    const value = deviceCookieValue(key, { username: 'alice', tokenVersion: 3 }, 3600);
    const nonce = value.split('.')[1];
    expect(validDeviceCookie(withCookie('alice', value), key, { username: 'alice', tokenVersion: 3 })).toBe(nonce);
  });

  it('is void once the token version moved on (password changed or reset, user deactivated)', () => {
    const value = deviceCookieValue(key, { username: 'alice', tokenVersion: 3 }, 3600);
    expect(validDeviceCookie(withCookie('alice', value), key, { username: 'alice', tokenVersion: 4 })).toBeUndefined();
  });

  it('is refused for another user, past its expiry, or under another key', () => {
    const owner = { username: 'alice', tokenVersion: 1 };
    const value = deviceCookieValue(key, owner, 3600);
    const bob = { username: 'bob', tokenVersion: 1 };
    expect(validDeviceCookie(withCookie('bob', value), key, bob)).toBeUndefined();
    const old = deviceCookieValue(key, owner, 60, Date.now() - 120_000);
    expect(validDeviceCookie(withCookie('alice', old), key, owner)).toBeUndefined();
    const otherKey = deviceCookieKey(new TextEncoder().encode('another-secret-another-secret-0123456'));
    expect(validDeviceCookie(withCookie('alice', deviceCookieValue(otherKey, owner, 3600)), key, owner)).toBeUndefined();
  });
});
