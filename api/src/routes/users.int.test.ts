// Removing users on the real stores: admin only, never the last active admin nor yourself; the user's
// browser sessions and mobile devices end at once, history (audit, acknowledgements) keeps the name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LastAdminError, removeUserKeepingAnAdmin } from '@watchpost/core';
import { addUser, createApiHarness, login, type ApiHarness } from '@watchpost/testkit/api';
import { enrollPhone } from '../test-helpers/api-calls.ts';

let h: ApiHarness;
let adminAuth: Record<string, string>;
let adminId = 0;

beforeAll(async () => {
  h = await createApiHarness('api_users_remove');
  const a = await addUser(h, 'chief', 'admin');
  adminId = a.id;
  adminAuth = { authorization: `Bearer ${(await login(h, a.username, a.password)).json().access_token}` };
});
afterAll(async () => h?.close());

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const remove = (id: number, headers = adminAuth) => h.app.inject({ method: 'DELETE', url: `/api/v1/users/${id}`, headers });

describe('DELETE /api/v1/users/{id}', () => {
  it('removes a user: sessions and devices end at once, the audit log keeps the name', async () => {
    const u = await addUser(h, 'leaver', 'monitor');
    const session = (await login(h, u.username, u.password)).json();
    expect((await h.app.inject({ url: '/api/v1/auth/me', headers: bearer(session.access_token) })).statusCode).toBe(200);
    // A phone enrolled for the user.
    const { code, enrolled } = await enrollPhone(h.app, adminAuth, { user_id: u.id }, 'Pixel');
    expect(code.statusCode).toBe(201);
    expect(enrolled.statusCode).toBe(200);
    const device = enrolled.json();
    expect((await h.app.inject({ url: '/api/v1/events', headers: bearer(device.access_token) })).statusCode).toBe(200);
    // History that names the user.
    await h.deps.pg.query(
      `INSERT INTO audit_log (actor, address, action, target) VALUES ('leaver', '127.0.0.1', 'auth.logout', 'leaver')`,
    );

    const r = await remove(u.id);
    expect(r.statusCode).toBe(204);

    // Every token of the user is refused: browser access, browser refresh, device access, device refresh.
    expect((await h.app.inject({ url: '/api/v1/auth/me', headers: bearer(session.access_token) })).statusCode).toBe(401);
    const refreshed = await h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/refresh',
      payload: { refresh_token: session.refresh_token },
    });
    expect(refreshed.statusCode).toBe(401);
    expect((await h.app.inject({ url: '/api/v1/events', headers: bearer(device.access_token) })).statusCode).toBe(401);
    const devices = await h.deps.pg.query('SELECT count(*)::int AS n FROM devices WHERE device_uuid = $1', [
      device.device.device_uuid,
    ]);
    expect(devices.rows[0].n).toBe(0);
    expect((await h.deps.pg.query('SELECT 1 FROM users WHERE id = $1', [u.id])).rowCount).toBe(0);
    // The user cannot log in any more.
    expect((await login(h, u.username, u.password)).statusCode).toBe(401);

    const audit = await h.deps.pg.query<{ actor: string; action: string; target: string; details: Record<string, unknown> }>(
      "SELECT actor, action, target, details FROM audit_log WHERE target = 'leaver' ORDER BY id",
    );
    const removal = audit.rows.find((a) => a.action === 'user.remove');
    expect(removal).toMatchObject({ actor: 'chief', target: 'leaver', details: { role: 'monitor', sessions: 2, devices: 1 } });
    expect(audit.rows.find((a) => a.action === 'auth.logout')?.actor).toBe('leaver');
    // Gone from the list; the listing of audit entries still shows the name.
    const list = await h.app.inject({ url: '/api/v1/users', headers: adminAuth });
    expect(list.json().items.map((x: { username: string }) => x.username)).not.toContain('leaver');
    const log = await h.app.inject({ url: '/api/v1/audit?action=user.remove', headers: adminAuth });
    expect(log.json().items[0]).toMatchObject({ actor: 'chief', action: 'user.remove', target: 'leaver' });
    // Again: 404.
    expect((await remove(u.id)).statusCode).toBe(404);
  });

  it('refuses a monitor (403), your own account (409) and the last active admin (409)', async () => {
    const m = await addUser(h, 'watcher', 'monitor');
    const monitorAuth = bearer((await login(h, m.username, m.password)).json().access_token);
    const forbidden = await remove(adminId, monitorAuth);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error.code).toBe('FORBIDDEN');

    const self = await remove(adminId);
    expect(self.statusCode).toBe(409);
    expect(self.json().error).toMatchObject({ code: 'SELF_REMOVAL', message: 'you cannot remove your own account' });

    // Through the API an admin can only meet the last-admin rule in a race: two admins removing each
    // other at once. Core's rule (under its lock) lets exactly one removal through.
    const second = await addUser(h, 'second', 'admin');
    const secondAuth = bearer((await login(h, second.username, second.password)).json().access_token);
    const results = await Promise.allSettled([
      removeUserKeepingAnAdmin(h.deps.pg, second.id),
      removeUserKeepingAnAdmin(h.deps.pg, adminId),
    ]);
    expect(results.map((x) => x.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = results.find((x) => x.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(LastAdminError);
    const admins = await h.deps.pg.query("SELECT id FROM users WHERE role = 'admin' AND active");
    expect(admins.rowCount).toBe(1);
    const survivor = results[0].status === 'fulfilled' ? { id: adminId, auth: adminAuth } : { id: second.id, auth: secondAuth };
    expect(Number(admins.rows[0].id)).toBe(survivor.id);
    // The only active admin cannot be removed (the CLI meets this; through the API it is SELF_REMOVAL first).
    await expect(removeUserKeepingAnAdmin(h.deps.pg, survivor.id)).rejects.toBeInstanceOf(LastAdminError);
    // An inactive admin can go.
    const idle = await addUser(h, 'idle-admin', 'admin');
    await h.deps.pg.query('UPDATE users SET active = false WHERE id = $1', [idle.id]);
    expect((await removeUserKeepingAnAdmin(h.deps.pg, idle.id))?.user.username).toBe('idle-admin');
    expect((await remove(m.id, survivor.auth)).statusCode).toBe(204);
  });
});
