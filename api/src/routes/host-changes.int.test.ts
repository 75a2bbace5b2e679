// Pending host changes (issue 21) through the real app on the real Postgres: a monitor reads them but
// cannot decide; an admin accepts (facts, binding, certificate applied; identity conflict resolved;
// audited) or rejects (host unchanged), one by one or in bulk with per-id outcomes; concurrent
// decisions apply once; the hosts list and detail show what is pending.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '@watchpost/core';
import {
  addUser,
  createApiHarness,
  insertBoundHost,
  login,
  openIdentityConflict,
  recordPendingChange,
  type ApiHarness,
} from '@watchpost/testkit/api';

let h: ApiHarness;
let admin: string;
let admin2: string;
let monitor: string;
let keyA: number;
let keyB: number;

async function call(method: 'GET' | 'POST', path: string, token: string, payload?: unknown) {
  const r = await h.app.inject({
    method,
    url: `/api/v1${path}`,
    headers: { authorization: `Bearer ${token}` },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  if (r.statusCode >= 500) console.log(path, r.body);
  return { status: r.statusCode, body: r.json() };
}
const get = (path: string, token = monitor) => call('GET', path, token);
const post = (path: string, payload?: unknown, token = admin) => call('POST', path, token, payload);

async function hostRow(id: number) {
  const r = await h.stores.pg.query(
    `SELECT os_family, product, fqdn, ipv4, internal_address, agent_instance_id, bound_key_id, bound_at, winrm_cert_sha256
       FROM hosts WHERE id = $1`,
    [id],
  );
  return r.rows[0];
}
async function changeRow(id: number) {
  return (await h.stores.pg.query('SELECT status, decided_by, decided_at FROM host_changes WHERE id = $1', [id])).rows[0];
}
async function auditOf(action: string) {
  return (await h.stores.pg.query('SELECT actor, action, target, details FROM audit_log WHERE action = $1 ORDER BY id', [action]))
    .rows;
}

let seq = 0;
/** A bound host with a pending facts change (ipv4 10.0.0.x -> 10.9.0.x). */
async function hostWithFacts(prefix: string) {
  const n = ++seq;
  const hostname = `${prefix}-${n}`;
  const id = await insertBoundHost(h.stores.pg, {
    hostname,
    ipv4: `10.0.0.${n}`,
    fqdn: `${hostname}.corp`,
    agent_instance_id: `inst-${hostname}`,
    bound_key_id: keyA,
  });
  const change = await recordPendingChange(h.stores.pg, {
    hostId: id,
    kind: 'facts',
    proposed: { ipv4: `10.9.0.${n}`, internal_address: `10.9.0.${n}`, fqdn: `${hostname}.new.corp` },
    current: { ipv4: `10.0.0.${n}`, internal_address: `10.0.0.${n}`, fqdn: `${hostname}.corp` },
    agent_instance_id: `inst-${hostname}`,
    key_id: keyA,
  });
  return { id, hostname, change, n };
}

beforeAll(async () => {
  h = await createApiHarness('host_changes');
  await Promise.all([addUser(h, 'ada', 'admin'), addUser(h, 'bea', 'admin'), addUser(h, 'max', 'monitor')]);
  const tokens = await Promise.all(
    ['ada', 'bea', 'max'].map(async (u) => (await login(h, u, `pw-${u}-secret`)).json().access_token as string),
  );
  [admin, admin2, monitor] = tokens as [string, string, string];
  keyA = (await createApiKey(h.deps.pg, 'fleet-a')).id;
  keyB = (await createApiKey(h.deps.pg, 'fleet-b')).id;
});
afterAll(async () => h?.close());

describe('reading pending changes', () => {
  it('a monitor lists them with the host names and paging, filtered by kind, host and search; gets one', async () => {
    const a = await hostWithFacts('read');
    const b = await hostWithFacts('read');
    const idc = await recordPendingChange(h.stores.pg, {
      hostId: b.id,
      kind: 'identity',
      proposed: { agent_instance_id: 'other-inst', key_id: keyB },
      current: { agent_instance_id: `inst-${b.hostname}`, key_id: keyA },
      agent_instance_id: 'other-inst',
      key_id: keyB,
    });
    const all = await get('/host-changes?search=read-&page_size=2');
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(3);
    expect(all.body.items).toHaveLength(2);
    expect(all.body.items[0]).toMatchObject({
      id: a.change,
      host_id: a.id,
      hostname: a.hostname,
      kind: 'facts',
      status: 'pending',
      proposed: { ipv4: `10.9.0.${a.n}` },
      current: { ipv4: `10.0.0.${a.n}` },
      key_name: 'fleet-a',
      seen_count: 1,
      decided_by: null,
    });
    const p2 = await get('/host-changes?search=read-&page_size=2&page=2');
    expect(p2.body.items.map((i: { id: number }) => i.id)).toEqual([idc]);
    expect(p2.body.items[0]).toMatchObject({ kind: 'identity', key_name: 'fleet-b', current_key_name: 'fleet-a' });

    const ident = await get('/host-changes?kind=identity&search=read-');
    expect(ident.body.items.map((i: { id: number }) => i.id)).toEqual([idc]);
    const byHost = await get(`/host-changes?host_id=${b.id}`);
    expect(byHost.body.items.map((i: { kind: string }) => i.kind)).toEqual(['facts', 'identity']);
    expect((await get(`/host-changes/${idc}`)).body).toMatchObject({ id: idc, hostname: b.hostname });
    expect((await get('/host-changes/999999')).status).toBe(404);
    expect((await get('/host-changes?kind=nope')).status).toBe(400);

    // A newer proposal replaces the pending one (same id, counted).
    const again = await recordPendingChange(h.stores.pg, {
      hostId: a.id,
      kind: 'facts',
      proposed: { ipv4: '10.9.9.9', internal_address: '10.9.9.9' },
      agent_instance_id: `inst-${a.hostname}`,
      key_id: keyA,
    });
    expect(again).toBe(a.change);
    expect((await get(`/host-changes/${a.change}`)).body).toMatchObject({ proposed: { ipv4: '10.9.9.9' }, seen_count: 2 });
  });

  it('the hosts list and detail show the pending changes and their kinds; pending=true filters', async () => {
    const a = await hostWithFacts('listed');
    await recordPendingChange(h.stores.pg, {
      hostId: a.id,
      kind: 'identity',
      proposed: { agent_instance_id: 'x', key_id: keyB },
    });
    const quiet = await insertBoundHost(h.stores.pg, { hostname: 'listed-quiet', bound_key_id: keyA });
    const list = await get('/hosts?search=listed');
    const byName = Object.fromEntries(list.body.items.map((i: { hostname: string }) => [i.hostname, i]));
    expect(byName[a.hostname]).toMatchObject({ pending_changes: 2, pending_change_kinds: ['facts', 'identity'] });
    expect(byName['listed-quiet']).toMatchObject({ pending_changes: 0, pending_change_kinds: [] });
    const pending = await get('/hosts?search=listed&pending=true');
    expect(pending.body.items.map((i: { hostname: string }) => i.hostname)).toEqual([a.hostname]);
    const detail = await get(`/hosts/${quiet}`);
    expect(detail.body).toMatchObject({ pending_changes: 0, bound_key_id: keyA, bound_key_name: 'fleet-a' });
    expect(detail.body.bound_at).toEqual(expect.any(String));
    expect((await get(`/hosts/${a.id}`)).body).toMatchObject({ pending_changes: 2, agent_instance_id: `inst-${a.hostname}` });
  });

  it('a monitor may not decide: 403 on every decision route, nothing changes', async () => {
    const a = await hostWithFacts('forbid');
    for (const [path, body] of [
      [`/host-changes/${a.change}/accept`, undefined],
      [`/host-changes/${a.change}/reject`, undefined],
      ['/host-changes/accept', { ids: [a.change] }],
      ['/host-changes/reject', { all: true }],
    ] as const) {
      expect((await post(path, body, monitor)).status, path).toBe(403);
    }
    expect(await changeRow(a.change)).toMatchObject({ status: 'pending' });
    expect(await hostRow(a.id)).toMatchObject({ ipv4: `10.0.0.${a.n}` });
  });
});

describe('accepting and rejecting one change', () => {
  it('accepting facts applies them to the host, marks the change accepted and audits it; a second accept is 409', async () => {
    const a = await hostWithFacts('acc');
    const before = await hostRow(a.id);
    const r = await post(`/host-changes/${a.change}/accept`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: a.change, status: 'accepted', decided_by: 'ada' });
    expect(r.body.decided_at).toEqual(expect.any(String));
    expect(await hostRow(a.id)).toMatchObject({
      ipv4: `10.9.0.${a.n}`,
      internal_address: `10.9.0.${a.n}`,
      fqdn: `${a.hostname}.new.corp`,
      os_family: 'linux',
      // facts never move the binding
      agent_instance_id: before.agent_instance_id,
      bound_key_id: keyA,
    });
    const entries = (await auditOf('host.change.accept')).filter((e) => e.target === a.hostname);
    expect(entries).toEqual([
      expect.objectContaining({
        actor: 'ada',
        details: expect.objectContaining({ change_id: a.change, kind: 'facts', proposed: expect.any(Object) }),
      }),
    ]);
    const again = await post(`/host-changes/${a.change}/accept`, undefined, admin2);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'CONFLICT', details: { reason: 'ALREADY_DECIDED', status: 'accepted' } });
    expect((await post(`/host-changes/${a.change}/reject`)).status).toBe(409);
    expect((await post('/host-changes/999999/accept')).status).toBe(404);
    expect((await get(`/hosts/${a.id}`)).body.pending_changes).toBe(0);
  });

  it('accepting an identity change binds the new agent instance and key and resolves the identity conflict problem', async () => {
    const a = await hostWithFacts('ident');
    const problem = await openIdentityConflict(h.stores.pg, a.hostname);
    const idc = await recordPendingChange(h.stores.pg, {
      hostId: a.id,
      kind: 'identity',
      proposed: { agent_instance_id: 'reinstalled', key_id: keyB, ipv4: '10.7.7.7', internal_address: '10.7.7.7' },
      current: { agent_instance_id: `inst-${a.hostname}`, key_id: keyA },
      agent_instance_id: 'reinstalled',
      key_id: keyB,
    });
    const before = await hostRow(a.id);
    const r = await post(`/host-changes/${idc}/accept`, {});
    expect(r.status).toBe(200);
    const after = await hostRow(a.id);
    expect(after).toMatchObject({ agent_instance_id: 'reinstalled', bound_key_id: keyB, ipv4: '10.7.7.7' });
    expect(after.bound_at.getTime()).toBeGreaterThan(before.bound_at.getTime());
    const p = await get(`/problems/${problem}`);
    expect(p.body).toMatchObject({ status: 'resolved', resolved_by: 'manual', resolved_by_user: 'ada' });
    // the facts change of the same host is still pending, on its own
    expect(await changeRow(a.change)).toMatchObject({ status: 'pending' });
    expect((await auditOf('host.change.accept')).some((e) => e.details.change_id === idc && e.details.kind === 'identity')).toBe(
      true,
    );
  });

  it('rejecting keeps the confirmed facts and the binding; a rejected identity change resolves its problem too', async () => {
    const a = await hostWithFacts('rej');
    const problem = await openIdentityConflict(h.stores.pg, a.hostname);
    const idc = await recordPendingChange(h.stores.pg, {
      hostId: a.id,
      kind: 'identity',
      proposed: { agent_instance_id: 'intruder', key_id: keyB },
      agent_instance_id: 'intruder',
      key_id: keyB,
    });
    const before = await hostRow(a.id);
    const r1 = await post(`/host-changes/${a.change}/reject`);
    expect(r1.status).toBe(200);
    expect(r1.body).toMatchObject({ status: 'rejected', decided_by: 'ada' });
    expect((await post(`/host-changes/${idc}/reject`)).body).toMatchObject({ status: 'rejected' });
    expect(await hostRow(a.id)).toEqual(before);
    expect((await get(`/problems/${problem}`)).body).toMatchObject({ status: 'resolved', resolved_by_user: 'ada' });
    expect((await auditOf('host.change.reject')).filter((e) => e.target === a.hostname)).toHaveLength(2);
    expect((await post(`/host-changes/${idc}/accept`)).status).toBe(409);
    expect(await hostRow(a.id)).toEqual(before);
  });

  it('accepting with the proposal shown refuses a proposal replaced meanwhile (409 CHANGED) and applies nothing', async () => {
    const a = await hostWithFacts('stale');
    const shown = (await get(`/host-changes/${a.change}`)).body.proposed;
    await recordPendingChange(h.stores.pg, {
      hostId: a.id,
      kind: 'facts',
      proposed: { ipv4: '127.0.0.1', internal_address: '127.0.0.1' },
    });
    const r = await post(`/host-changes/${a.change}/accept`, { proposed: shown });
    expect(r.status).toBe(409);
    expect(r.body.error.details).toEqual({ reason: 'CHANGED', status: 'pending' });
    expect(await hostRow(a.id)).toMatchObject({ ipv4: `10.0.0.${a.n}` });
    const now = (await get(`/host-changes/${a.change}`)).body.proposed;
    // key order does not matter
    const reordered = Object.fromEntries(Object.entries(now).reverse());
    expect((await post(`/host-changes/${a.change}/reject`, { proposed: reordered })).status).toBe(200);
  });

  it('accepting a WinRM certificate change pins the certificate', async () => {
    const id = await insertBoundHost(h.stores.pg, { hostname: 'cert-1', os_family: 'windows', product: 'rdp-login-monitor' });
    const sha = 'ab'.repeat(32);
    const c = await recordPendingChange(h.stores.pg, { hostId: id, kind: 'winrm_certificate', proposed: { cert_sha256: sha } });
    expect((await post(`/host-changes/${c}/accept`)).status).toBe(200);
    expect(await hostRow(id)).toMatchObject({ winrm_cert_sha256: sha, os_family: 'windows', product: 'rdp-login-monitor' });
    expect((await get(`/hosts/${id}`)).body.winrm_cert_sha256).toBe(sha);
  });
});

describe('bulk decisions', () => {
  it('accepts a list of ids with per-id outcomes: an already decided and an unknown id do not stop the rest', async () => {
    const [a, b, c] = [await hostWithFacts('bulk'), await hostWithFacts('bulk'), await hostWithFacts('bulk')];
    expect((await post(`/host-changes/${b.change}/reject`, undefined, admin2)).status).toBe(200);
    const r = await post('/host-changes/accept', { ids: [a.change, b.change, 987654, c.change] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ decided: 2, conflicts: 1, not_found: 1, remaining: 0 });
    expect(r.body.items).toEqual([
      { id: a.change, outcome: 'accepted', status: 'accepted', host_id: a.id, hostname: a.hostname, kind: 'facts' },
      {
        id: b.change,
        outcome: 'conflict',
        reason: 'ALREADY_DECIDED',
        status: 'rejected',
        host_id: b.id,
        hostname: b.hostname,
        kind: 'facts',
      },
      { id: 987654, outcome: 'not_found' },
      { id: c.change, outcome: 'accepted', status: 'accepted', host_id: c.id, hostname: c.hostname, kind: 'facts' },
    ]);
    expect((await hostRow(a.id)).ipv4).toBe(`10.9.0.${a.n}`);
    expect((await hostRow(b.id)).ipv4).toBe(`10.0.0.${b.n}`);
    expect((await hostRow(c.id)).ipv4).toBe(`10.9.0.${c.n}`);
    const bulkAudit = (await auditOf('host.change.accept')).filter((e) => [a.hostname, c.hostname].includes(e.target));
    expect(bulkAudit.map((e) => e.details.bulk)).toEqual([true, true]);
  });

  it('accepts or rejects all pending changes under a filter; `changes` guards each proposal', async () => {
    const hosts = [await hostWithFacts('fleet'), await hostWithFacts('fleet'), await hostWithFacts('fleet')];
    const ident = await recordPendingChange(h.stores.pg, {
      hostId: hosts[0]!.id,
      kind: 'identity',
      proposed: { agent_instance_id: 'fleet-new', key_id: keyB },
    });
    const other = await hostWithFacts('elsewhere');
    const r = await post('/host-changes/accept', { all: true, kind: 'facts', search: 'fleet-' });
    expect(r.body).toMatchObject({ decided: 3, conflicts: 0, remaining: 0 });
    for (const x of hosts) expect((await hostRow(x.id)).ipv4).toBe(`10.9.0.${x.n}`);
    expect(await changeRow(ident)).toMatchObject({ status: 'pending' });
    expect(await changeRow(other.change)).toMatchObject({ status: 'pending' });

    const shown = (await get(`/host-changes/${other.change}`)).body.proposed;
    const guarded = await post('/host-changes/reject', {
      changes: [
        { id: other.change, proposed: shown },
        { id: ident, proposed: { agent_instance_id: 'something-else' } },
      ],
    });
    expect(guarded.body.items.map((i: { outcome: string; reason?: string }) => [i.outcome, i.reason])).toEqual([
      ['rejected', undefined],
      ['conflict', 'CHANGED'],
    ]);
    const rest = await post('/host-changes/reject', { all: true, host_id: hosts[0]!.id });
    expect(rest.body).toMatchObject({ decided: 1, remaining: 0, items: [{ id: ident, outcome: 'rejected' }] });
  });

  it('refuses a body that is not exactly one selector', async () => {
    for (const body of [{}, { ids: [] }, { ids: [1], all: true }, { ids: [1], kind: 'facts' }, { all: false }, { ids: ['x'] }]) {
      const r = await post('/host-changes/accept', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.message).toEqual(expect.any(String));
    }
  });
});

describe('concurrency', () => {
  it('two admins accepting the same change at once: exactly one applies it, the other gets 409', async () => {
    for (let round = 0; round < 3; round++) {
      const a = await hostWithFacts('race');
      const results = await Promise.all([
        post(`/host-changes/${a.change}/accept`, undefined, admin),
        post(`/host-changes/${a.change}/accept`, undefined, admin2),
        post('/host-changes/accept', { ids: [a.change] }, admin2),
        post(`/host-changes/${a.change}/reject`, undefined, admin),
      ]);
      const decided = results.filter((r) => r.status === 200 && (r.body.status !== undefined || r.body.decided === 1));
      expect(decided, JSON.stringify(results)).toHaveLength(1);
      expect(results.filter((r) => r.status === 409 || r.body.conflicts === 1)).toHaveLength(3);
      const entries = (await h.stores.pg.query(`SELECT action FROM audit_log WHERE target = $1`, [a.hostname])).rows;
      expect(entries).toHaveLength(1);
    }
  });
});
