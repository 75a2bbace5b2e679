// Agent API keys over HTTP on the real Postgres: created with the configured prefix (SERVICE_AGENT_KEY_PREFIX),
// imported from another collector (admin only; stored hashed, never echoed; duplicates 409; audited).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { hashApiKey, verifyApiKey } from '@watchpost/core';
import { addUser, createApiHarness, login, type ApiHarness } from '@watchpost/testkit/api';

let h: ApiHarness;
let admin: string;
let monitor: string;

async function call(method: 'GET' | 'POST', path: string, token: string | null, payload?: unknown) {
  const r = await h.app.inject({
    method,
    url: `/api/v1${path}`,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  return { status: r.statusCode, body: r.json(), raw: r.body };
}

beforeAll(async () => {
  h = await createApiHarness('api_keys_routes', { env: { SERVICE_AGENT_KEY_PREFIX: 'corp_' } });
  await Promise.all([addUser(h, 'ada', 'admin'), addUser(h, 'max', 'monitor')]);
  [admin, monitor] = (await Promise.all(['ada', 'max'].map(async (u) => (await login(h, u, `pw-${u}-secret`)).json()))).map(
    (b: { access_token: string }) => b.access_token,
  ) as [string, string];
});
afterAll(async () => h?.close());

describe('POST /api/v1/api-keys', () => {
  it('creates keys with the configured prefix and answers what lists show of it', async () => {
    const c = await call('POST', '/api-keys', admin, { name: 'gw' });
    expect(c.status).toBe(201);
    expect(c.body.key).toMatch(/^corp_[A-Za-z0-9_-]{43}$/);
    expect(c.body.prefix).toBe(c.body.key.slice(0, 13));
    expect(await h.deps.verifyAgentKey(c.body.key)).toBe(true);
  });
});

describe('POST /api/v1/api-keys/import', () => {
  // The Windows agent's key shape: `$SacApiKey = 'sac_...'` (rdp-login-monitor Deploy-LoginMonitor.ps1,
  // Test-RdpMonitorSettingsNeedsSacBootstrap), whatever this service's own prefix is.
  const key = `sac_${randomBytes(24).toString('base64url')}`;

  it('imports an existing key for an admin: stored hashed, never echoed, audited, verified like a generated one', async () => {
    const r = await call('POST', '/api-keys/import', admin, { name: ' rdp-fleet ', key });
    expect(r.status, r.raw).toBe(201);
    expect(r.body).toEqual({ id: expect.any(Number), name: 'rdp-fleet', prefix: key.slice(0, 12) });
    expect(r.raw).not.toContain(key.slice(12));
    const row = (await h.stores.pg.query('SELECT name, key_hash, prefix FROM api_keys WHERE id = $1', [r.body.id])).rows[0];
    expect(row).toEqual({ name: 'rdp-fleet', key_hash: hashApiKey(key), prefix: key.slice(0, 12) });
    expect(await h.deps.verifyAgentKey(key)).toBe(true);
    expect(await verifyApiKey(h.deps.pg, key)).toEqual({ id: r.body.id });
    const list = await call('GET', '/api-keys', admin);
    expect(list.raw).not.toContain(key.slice(12));
    expect(list.body.items.find((k: { id: number }) => k.id === r.body.id)).toMatchObject({
      name: 'rdp-fleet',
      prefix: key.slice(0, 12),
      revoked_at: null,
    });
    const audit = await h.stores.pg.query("SELECT actor, target, details FROM audit_log WHERE action = 'api_key.import'");
    expect(audit.rows).toEqual([{ actor: 'ada', target: 'rdp-fleet', details: { id: r.body.id, prefix: key.slice(0, 12) } }]);
    expect(JSON.stringify(audit.rows)).not.toContain(key.slice(12));
  });

  it('refuses the same key again with 409 KEY_EXISTS naming the registered key, not the key', async () => {
    const r = await call('POST', '/api-keys/import', admin, { name: 'again', key: `${key}\n` });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({
      code: 'KEY_EXISTS',
      message: expect.stringMatching(/already registered as API key \d+ "rdp-fleet"/),
    });
    expect(r.raw).not.toContain(key.slice(4));
    expect((await h.stores.pg.query("SELECT 1 FROM api_keys WHERE name = 'again'")).rowCount).toBe(0);
  });

  it('refuses a weak or malformed key with 400 VALIDATION_FAILED on /key, without echoing it', async () => {
    const bad: [string, RegExp][] = [
      ['sac_CHANGE_ME', /24 to 512 characters, got 13/],
      [`sac_${randomBytes(12).toString('hex')} x`, /printable ASCII without spaces/],
      ['sac_CHANGE_ME_f3a9c2d17be04a65', /placeholder/],
      ['sac_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz', /too few distinct characters/],
    ];
    for (const [k, want] of bad) {
      const r = await call('POST', '/api-keys/import', admin, { name: 'bad', key: k });
      expect(r.status, k).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(want) });
      expect(r.body.error.details).toEqual([{ in: 'body', pointer: '/key', message: r.body.error.message }]);
      expect(r.raw).not.toContain(k.slice(4, 16));
    }
    const missing = await call('POST', '/api-keys/import', admin, { name: 'bad' });
    expect(missing.status).toBe(400);
    expect((await h.stores.pg.query("SELECT 1 FROM api_keys WHERE name = 'bad'")).rowCount).toBe(0);
  });

  it('is for admins only: a monitor gets 403, no token 401, and nothing is stored', async () => {
    const k = `sac_${randomBytes(24).toString('base64url')}`;
    const m = await call('POST', '/api-keys/import', monitor, { name: 'sneaky', key: k });
    expect(m.status).toBe(403);
    expect(m.body.error.code).toBe('FORBIDDEN');
    expect((await call('POST', '/api-keys/import', null, { name: 'sneaky', key: k })).status).toBe(401);
    expect(await h.deps.verifyAgentKey(k)).toBe(false);
    expect((await h.stores.pg.query("SELECT 1 FROM api_keys WHERE name = 'sneaky'")).rowCount).toBe(0);
  });
});
