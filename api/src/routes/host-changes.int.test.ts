// Pending host changes (issue 21) through the real app on the real Postgres: a monitor reads them but
// cannot decide; an admin accepts (facts, binding, certificate applied; identity conflict resolved;
// audited) or rejects (host unchanged), one by one or in bulk with per-id outcomes; concurrent
// decisions apply once; the hosts list and detail show what is pending. Issue 33: a bulk accept applies
// only the proposals the admin saw and never an identity or certificate change; agent instance ids
// (host, changes, an event's JSON, an identity problem's details) reach admins' browser sessions only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '@watchpost/core';
import { makeEnvelope } from '@watchpost/testkit';
import {
  addUser,
  createApiHarness,
  insertBoundHost,
  insertEnvelopes,
  login,
  openIdentityConflict,
  recordPendingChange,
  type ApiHarness,
} from '@watchpost/testkit/api';
import { callApi, enrollPhone as enrollPhoneFor } from '../test-helpers/api-calls.ts';

let h: ApiHarness;
let admin: string;
let admin2: string;
let monitor: string;
let monitorId: number;
let keyA: number;
let keyB: number;

const get = (path: string, token = monitor) => callApi(h.app, 'GET', path, token);
const post = (path: string, payload?: unknown, token = admin) => callApi(h.app, 'POST', path, token, payload);
/** The changes as an admin's list shows them: what a bulk accept sends back. */
async function shown(...ids: number[]) {
  return Promise.all(ids.map(async (id) => ({ id, proposed: (await get(`/host-changes/${id}`, admin)).body.proposed })));
}

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

/**
 * An identity change of a host from hostWithFacts: another agent instance (`instance`, key `keyId`)
 * speaking for it, with the bound instance and key A as `current`, reported by that other agent.
 */
async function identityChange(host: { id: number; hostname: string }, instance: string, keyId: number, more: object = {}) {
  return recordPendingChange(h.stores.pg, {
    hostId: host.id,
    kind: 'identity',
    proposed: { agent_instance_id: instance, key_id: keyId, ...more },
    current: { agent_instance_id: `inst-${host.hostname}`, key_id: keyA },
    agent_instance_id: instance,
    key_id: keyId,
  });
}

beforeAll(async () => {
  h = await createApiHarness('host_changes');
  const [, , max] = await Promise.all([addUser(h, 'ada', 'admin'), addUser(h, 'bea', 'admin'), addUser(h, 'max', 'monitor')]);
  monitorId = max.id;
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
    const idc = await identityChange(b, 'other-inst', keyB);
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
    expect((await get(`/hosts/${a.id}`, admin)).body).toMatchObject({
      pending_changes: 2,
      agent_instance_id: `inst-${a.hostname}`,
    });
    // A monitor sees the host and its pending changes, not its bound instance (issue 33).
    expect((await get(`/hosts/${a.id}`)).body).toMatchObject({ pending_changes: 2, agent_instance_id: null });
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
    const idc = await identityChange(a, 'reinstalled', keyB, { ipv4: '10.7.7.7', internal_address: '10.7.7.7' });
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
  it('accepts the changes shown with per-id outcomes: an already decided and an unknown id do not stop the rest', async () => {
    const [a, b, c] = [await hostWithFacts('bulk'), await hostWithFacts('bulk'), await hostWithFacts('bulk')];
    const seen = await shown(a.change, b.change);
    expect((await post(`/host-changes/${b.change}/reject`, undefined, admin2)).status).toBe(200);
    const r = await post('/host-changes/accept', {
      changes: [...seen, { id: 987654, proposed: {} }, ...(await shown(c.change))],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ decided: 2, conflicts: 1, refused: 0, not_found: 1, remaining: 0 });
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

  it('rejects all pending changes under a filter; `changes` guards each proposal', async () => {
    const hosts = [await hostWithFacts('fleet'), await hostWithFacts('fleet'), await hostWithFacts('fleet')];
    const ident = await recordPendingChange(h.stores.pg, {
      hostId: hosts[0]!.id,
      kind: 'identity',
      proposed: { agent_instance_id: 'fleet-new', key_id: keyB },
    });
    const other = await hostWithFacts('elsewhere');
    const r = await post('/host-changes/reject', { all: true, kind: 'facts', search: 'fleet-' });
    expect(r.body).toMatchObject({ decided: 3, conflicts: 0, refused: 0, remaining: 0 });
    for (const x of hosts) {
      expect((await hostRow(x.id)).ipv4).toBe(`10.0.0.${x.n}`);
      expect(await changeRow(x.change)).toMatchObject({ status: 'rejected' });
    }
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
    for (const path of ['/host-changes/accept', '/host-changes/reject'])
      for (const body of [
        {},
        { ids: [] },
        { ids: [1], all: true },
        { ids: [1], kind: 'facts' },
        { all: false },
        { ids: ['x'] },
      ]) {
        const r = await post(path, body);
        expect(r.status, `${path} ${JSON.stringify(body)}`).toBe(400);
        expect(r.body.error.message).toEqual(expect.any(String));
      }
  });
});

describe('concurrency', () => {
  it('two admins accepting the same change at once: exactly one applies it, the other gets 409', async () => {
    for (let round = 0; round < 3; round++) {
      const a = await hostWithFacts('race');
      const seen = await shown(a.change);
      const results = await Promise.all([
        post(`/host-changes/${a.change}/accept`, undefined, admin),
        post(`/host-changes/${a.change}/accept`, undefined, admin2),
        post('/host-changes/accept', { changes: seen }, admin2),
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

describe('a bulk accept applies only what the admin saw (issue 33 item 4)', () => {
  it('answers 400 to ids and all: true and applies nothing; a bulk reject still takes them', async () => {
    const a = await hostWithFacts('seen');
    for (const body of [{ ids: [a.change] }, { all: true }, { all: true, host_id: a.id }]) {
      const r = await post('/host-changes/accept', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('changes: [{id, proposed}]') });
    }
    expect(await changeRow(a.change)).toMatchObject({ status: 'pending' });
    expect(await hostRow(a.id)).toMatchObject({ ipv4: `10.0.0.${a.n}` });
    expect((await auditOf('host.change.accept')).filter((e) => e.target === a.hostname)).toEqual([]);
    const r = await post('/host-changes/reject', { ids: [a.change] });
    expect(r.body).toMatchObject({ decided: 1, items: [{ id: a.change, outcome: 'rejected' }] });
  });

  it('an identity proposal replaced after the admin listed it is not applied', async () => {
    const a = await hostWithFacts('late');
    const idc = await identityChange(a, 'reinstalled-late', keyA);
    const seen = await shown(a.change, idc);
    // After the admin looked, another report replaces the proposal (the same pending change, a new agent and address).
    const replaced = await recordPendingChange(h.stores.pg, {
      hostId: a.id,
      kind: 'identity',
      proposed: { agent_instance_id: 'attacker', key_id: keyB, ipv4: '203.0.113.66', internal_address: '203.0.113.66' },
      agent_instance_id: 'attacker',
      key_id: keyB,
    });
    expect(replaced).toBe(idc);
    const before = await hostRow(a.id);
    const r = await post('/host-changes/accept', { changes: seen });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ decided: 1, conflicts: 1, refused: 0, not_found: 0 });
    expect(r.body.items).toEqual([
      expect.objectContaining({ id: a.change, outcome: 'accepted' }),
      expect.objectContaining({ id: idc, outcome: 'conflict', reason: 'CHANGED', status: 'pending' }),
    ]);
    expect(await hostRow(a.id)).toMatchObject({
      agent_instance_id: before.agent_instance_id,
      bound_key_id: keyA,
      bound_at: before.bound_at,
      ipv4: `10.9.0.${a.n}`,
    });
    // Nor by the id the admin ticked, whatever is pending under it now.
    expect((await post('/host-changes/accept', { ids: [idc] })).status).toBe(400);
    expect(await changeRow(idc)).toMatchObject({ status: 'pending' });
    expect(await hostRow(a.id)).toMatchObject({ agent_instance_id: before.agent_instance_id, bound_key_id: keyA });
  });

  it('refuses identity and certificate changes in a bulk accept (ONE_BY_ONE); the one-change route accepts them', async () => {
    const a = await hostWithFacts('onebyone');
    const problem = await openIdentityConflict(h.stores.pg, a.hostname);
    const idc = await identityChange(a, 'reinstalled-1b1', keyB);
    const win = await insertBoundHost(h.stores.pg, {
      hostname: 'onebyone-win',
      os_family: 'windows',
      product: 'rdp-login-monitor',
    });
    const sha = 'cd'.repeat(32);
    const cert = await recordPendingChange(h.stores.pg, {
      hostId: win,
      kind: 'winrm_certificate',
      proposed: { cert_sha256: sha },
    });
    const before = await hostRow(a.id);

    const r = await post('/host-changes/accept', { changes: await shown(idc, a.change, cert) });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ decided: 1, conflicts: 0, refused: 2, not_found: 0, remaining: 0 });
    expect(r.body.items).toEqual([
      {
        id: idc,
        outcome: 'refused',
        reason: 'ONE_BY_ONE',
        status: 'pending',
        host_id: a.id,
        hostname: a.hostname,
        kind: 'identity',
      },
      { id: a.change, outcome: 'accepted', status: 'accepted', host_id: a.id, hostname: a.hostname, kind: 'facts' },
      {
        id: cert,
        outcome: 'refused',
        reason: 'ONE_BY_ONE',
        status: 'pending',
        host_id: win,
        hostname: 'onebyone-win',
        kind: 'winrm_certificate',
      },
    ]);
    // The facts were applied; the binding, the pinned certificate and the identity problem were not touched.
    expect(await hostRow(a.id)).toMatchObject({
      agent_instance_id: before.agent_instance_id,
      bound_key_id: keyA,
      ipv4: `10.9.0.${a.n}`,
    });
    expect(await hostRow(win)).toMatchObject({ winrm_cert_sha256: null });
    expect([await changeRow(idc), await changeRow(cert)]).toEqual([
      expect.objectContaining({ status: 'pending', decided_by: null }),
      expect.objectContaining({ status: 'pending', decided_by: null }),
    ]);
    expect((await get(`/problems/${problem}`)).body.status).toBe('open');
    expect((await auditOf('host.change.accept')).filter((e) => [idc, cert].includes(e.details.change_id))).toEqual([]);

    // One by one, each after a look: accepted.
    const one = await post(`/host-changes/${idc}/accept`, { proposed: (await shown(idc))[0]!.proposed });
    expect(one.status).toBe(200);
    expect(await hostRow(a.id)).toMatchObject({ agent_instance_id: 'reinstalled-1b1', bound_key_id: keyB });
    expect((await get(`/problems/${problem}`)).body.status).toBe('resolved');
    expect((await post(`/host-changes/${cert}/accept`)).status).toBe(200);
    expect(await hostRow(win)).toMatchObject({ winrm_cert_sha256: sha });
  });
});

describe('agent instance ids are for admins only (issue 33 item 3)', () => {
  /** A phone enrolled for the user (the admin's own with {}), as the mobile app does; its access token. */
  async function enrollPhone(body: object): Promise<string> {
    const { code, enrolled } = await enrollPhoneFor(h.app, { authorization: `Bearer ${admin}` }, body);
    expect(code.statusCode).toBe(201);
    expect(enrolled.statusCode).toBe(200);
    return enrolled.json().access_token as string;
  }

  it('a monitor and any phone read hosts, changes, events and identity problems without them; an admin sees them', async () => {
    const a = await hostWithFacts('idvis');
    const bound = `inst-${a.hostname}`;
    const idc = await identityChange(a, 'inst-other-idvis', keyB);
    // As correlate's identity rule records it (processors/src/correlate/rules/identity.ts).
    const seenOther = { agent_instance_id: 'inst-other-idvis', key_id: keyB };
    const problem = await openIdentityConflict(h.stores.pg, a.hostname, {
      bound: { agent_instance_id: bound, key_id: keyA },
      latest: seenOther,
      recent: [seenOther],
    });
    const env = makeEnvelope({
      source: { product: 'ssh-monitor', product_version: '2.4.1', agent_instance_id: bound },
      host: { hostname: a.hostname, os_family: 'linux', ipv4: `10.0.0.${a.n}` },
    });
    await insertEnvelopes(h.stores.ch, [env]);
    const eventId = env.event.event_id;
    const reads = [
      `/hosts/${a.id}`,
      `/host-changes?host_id=${a.id}`,
      `/host-changes/${idc}`,
      `/events/${eventId}`,
      `/problems/${problem}`,
      `/problems?host=${a.hostname}`,
    ];

    // An admin's browser session: every instance id.
    const forAdmin = Object.fromEntries(await Promise.all(reads.map(async (p) => [p, await get(p, admin)] as const)));
    for (const p of reads) expect(forAdmin[p]!.status, p).toBe(200);
    expect(forAdmin[`/hosts/${a.id}`]!.body.agent_instance_id).toBe(bound);
    expect(forAdmin[`/host-changes/${idc}`]!.body).toMatchObject({
      agent_instance_id: 'inst-other-idvis',
      proposed: { agent_instance_id: 'inst-other-idvis' },
      current: { agent_instance_id: bound },
    });
    expect(
      forAdmin[`/host-changes?host_id=${a.id}`]!.body.items.map((c: { agent_instance_id: string }) => c.agent_instance_id),
    ).toEqual([bound, 'inst-other-idvis']);
    expect(forAdmin[`/events/${eventId}`]!.body.event.source).toEqual({
      product: 'ssh-monitor',
      product_version: '2.4.1',
      agent_instance_id: bound,
    });
    expect(forAdmin[`/problems/${problem}`]!.body.details).toMatchObject({ bound: { agent_instance_id: bound } });

    // A monitor: the same reads, no instance id anywhere (null where the field is required).
    for (const p of reads) {
      const r = await get(p, monitor);
      expect(r.status, p).toBe(200);
      expect(JSON.stringify(r.body), p).not.toContain('inst-');
    }
    expect((await get(`/hosts/${a.id}`)).body).toMatchObject({ agent_instance_id: null, bound_key_id: keyA });
    const one = (await get(`/host-changes/${idc}`)).body;
    expect(one).toMatchObject({ agent_instance_id: null, proposed: { key_id: keyB }, current: { key_id: keyA } });
    expect(Object.keys(one.proposed)).not.toContain('agent_instance_id');
    expect((await get(`/events/${eventId}`)).body.event.source).toEqual({ product: 'ssh-monitor', product_version: '2.4.1' });
    expect((await get(`/problems/${problem}`)).body.details).toEqual({
      bound: { key_id: keyA },
      latest: { key_id: keyB },
      recent: [{ key_id: keyB }],
    });

    // A phone, the admin's own included (a device token is a phone, not an admin session): events and problems only, without them.
    for (const phone of [await enrollPhone({}), await enrollPhone({ user_id: monitorId })]) {
      for (const p of [`/events/${eventId}`, `/problems/${problem}`, `/problems?host=${a.hostname}`]) {
        const r = await get(p, phone);
        expect(r.status, p).toBe(200);
        expect(JSON.stringify(r.body), p).not.toContain('inst-');
      }
      expect((await get(`/hosts/${a.id}`, phone)).status).toBe(403);
    }
  });
});
