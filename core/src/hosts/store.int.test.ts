import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '@watchpost/runtime';
import { createTestStores, testConfig, type TestStores } from '@watchpost/testkit';
import {
  ACTION_HOST_COLUMNS,
  deleteHostRow,
  findGatewayHost,
  findHost,
  findHostsByHostname,
  hostColumns,
  lockHost,
  markHostStale,
  pinSshHostKey,
  pinnedSshHostKey,
  setHostProductVersion,
  setSshAdminOk,
  silentHostnames,
  upsertHosts,
  writeHostInventories,
  type HostColumn,
  type HostRefresh,
} from './store.ts';
import { getHostView, hostCounts, likeContains, listHostViews, problemHostJoin } from './reads.ts';

let s: TestStores;
beforeAll(async () => {
  s = await createTestStores(testConfig('host_store'), { kafka: false });
});
afterAll(async () => s?.drop());

const MIN = 60_000;
const t0 = new Date('2030-01-01T00:00:00Z');
const at = (minutes: number) => new Date(t0.getTime() + minutes * MIN);

function refresh(hostname: string, over: Partial<HostRefresh> = {}): HostRefresh {
  return {
    hostname,
    display_name: null,
    os_family: 'linux',
    os_version: null,
    fqdn: null,
    ipv4: null,
    ipv6: null,
    timezone: null,
    product: 'ssh-monitor',
    product_version: '1.0.0',
    agent_instance_id: null,
    bound_key_id: null,
    bound_at: null,
    first_seen: t0,
    last_seen: t0,
    last_heartbeat: null,
    first_live_at: null,
    ...over,
  };
}

const upsert = (rows: HostRefresh[]) => withTransaction(s.pg, (c) => upsertHosts(c, rows));
const idOf = async (hostname: string) => (await findHost(s.pg, { hostname }, ['id']))!.id;

describe('host store (Postgres)', () => {
  it('upserts: a new host from its first event, a known one keeps first_seen and non-null fields and turns online', async () => {
    await upsert([
      refresh('up-1', { display_name: 'Up One', fqdn: 'up-1.lan', ipv4: '10.0.0.1', last_heartbeat: t0, first_live_at: t0 }),
    ]);
    const created = await findHost(s.pg, { hostname: 'up-1' }, ['first_seen', 'status', 'status_changed_at', 'internal_address']);
    expect(created).toEqual({ first_seen: t0, status: 'online', status_changed_at: t0, internal_address: '10.0.0.1' });

    await withTransaction(s.pg, (c) => markHostStale(c, 'up-1', at(10)));
    expect(await findHost(s.pg, { hostname: 'up-1' }, ['status', 'status_changed_at'])).toEqual({
      status: 'stale',
      status_changed_at: at(10),
    });
    // A later batch: nulls keep the stored fields, the latest product version wins, heartbeat turns it
    // online; the confirmed facts (os_family here) stay: only an accepted change sets them (issue 21).
    await upsert([
      refresh('up-1', {
        os_family: 'debian',
        product_version: '1.1.0',
        first_seen: at(20),
        last_seen: at(21),
        last_heartbeat: at(21),
        first_live_at: at(20),
      }),
    ]);
    const h = await findHost(s.pg, { hostname: 'up-1' }, [
      'display_name',
      'fqdn',
      'os_family',
      'product_version',
      'first_seen',
      'last_seen',
      'last_heartbeat',
      'status',
      'status_changed_at',
      'internal_address',
    ]);
    expect(h).toEqual({
      display_name: 'Up One',
      fqdn: 'up-1.lan',
      os_family: 'linux',
      product_version: '1.1.0',
      first_seen: t0,
      last_seen: at(21),
      last_heartbeat: at(21),
      status: 'online',
      status_changed_at: at(20),
      internal_address: '10.0.0.1',
    });
    // An older event never moves last_seen or the heartbeat back.
    await upsert([refresh('up-1', { last_seen: at(5), last_heartbeat: at(5), first_live_at: at(5) })]);
    expect(await findHost(s.pg, { hostname: 'up-1' }, ['last_seen', 'last_heartbeat', 'status_changed_at'])).toEqual({
      last_seen: at(21),
      last_heartbeat: at(21),
      status_changed_at: at(20),
    });
  });

  it('reads by id, by hostname, several by hostname, and locked; refuses an unknown column', async () => {
    await upsert([refresh('rd-1', { ipv4: '10.0.1.1' }), refresh('rd-2', { fqdn: 'rd-2.lan' })]);
    const id = await idOf('rd-1');
    expect(typeof id).toBe('number');
    expect(await findHost(s.pg, { id }, ACTION_HOST_COLUMNS)).toEqual({
      id,
      hostname: 'rd-1',
      os_family: 'linux',
      product: 'ssh-monitor',
      fqdn: null,
      ipv4: '10.0.1.1',
      internal_address: '10.0.1.1',
    });
    expect(await findHost(s.pg, { hostname: 'nope' }, ['id'])).toBeNull();
    const many = await findHostsByHostname(s.pg, ['rd-1', 'rd-2', 'nope'], ['fqdn']);
    expect([...many.entries()].sort()).toEqual([
      ['rd-1', { hostname: 'rd-1', fqdn: null }],
      ['rd-2', { hostname: 'rd-2', fqdn: 'rd-2.lan' }],
    ]);
    expect((await findHostsByHostname(s.pg, [], ['fqdn'])).size).toBe(0);
    const locked = await withTransaction(s.pg, (c) => lockHost(c, { hostname: 'rd-2' }, ['hostname', 'status']));
    expect(locked).toEqual({ hostname: 'rd-2', status: 'online' });
    expect(() => hostColumns(['id; DROP TABLE hosts' as HostColumn])).toThrow(/not a hosts column/);
    expect(hostColumns(['id', 'hostname'], 'h')).toBe('h.id, h.hostname');
  });

  it('finds the Windows host a gateway address names: exact internal address first, case-insensitive names, never Linux', async () => {
    await upsert([
      refresh('GW-WIN-1', { os_family: 'windows', product: 'rdp-login-monitor', fqdn: 'Win-1.Corp.Lan', ipv4: '10.9.0.1' }),
      refresh('gw-win-2', { os_family: 'Windows', product: 'other', ipv4: '10.9.0.2', last_seen: at(1) }),
      refresh('gw-lin', { ipv4: '10.9.0.3', fqdn: 'lin.corp.lan' }),
    ]);
    const name = async (a: string) => {
      const m = await findGatewayHost(s.pg, a);
      return m.host?.hostname ?? (m.ambiguous.length ? `ambiguous: ${m.ambiguous.join(', ')}` : null);
    };
    expect(await name('10.9.0.1')).toBe('GW-WIN-1');
    expect(await name('win-1.corp.lan')).toBe('GW-WIN-1');
    expect(await name('gw-win-1')).toBe('GW-WIN-1');
    expect(await name('10.9.0.2')).toBe('gw-win-2');
    expect(await name('10.9.0.3')).toBeNull();
    expect(await name('lin.corp.lan')).toBeNull();
    expect(await name('lin')).toBeNull();
    // GW-WIN-1 was seen later, but an exact internal address wins over an IPv4 match.
    await s.pg.query(`UPDATE hosts SET internal_address = '10.9.0.9', ipv4 = '10.9.0.9' WHERE hostname = 'gw-win-2'`);
    await s.pg.query(`UPDATE hosts SET internal_address = NULL, ipv4 = '10.9.0.9', last_seen = $1 WHERE hostname = 'GW-WIN-1'`, [
      at(100),
    ]);
    expect(await name('10.9.0.9')).toBe('gw-win-2');
    const h = await findGatewayHost(s.pg, '10.9.0.9');
    expect(Object.keys(h.host!).sort()).toEqual([...ACTION_HOST_COLUMNS].sort());
  });

  it('maps a gateway resource typed as a DNS or bare name to the NetBIOS host name; refuses when two hosts fit', async () => {
    // As rdp-login-monitor reports them: host.hostname = $env:COMPUTERNAME, upper case, never an FQDN.
    await upsert([
      refresh('WS-01', { os_family: 'windows', product: 'rdp-login-monitor', ipv4: '10.20.0.1' }),
      refresh('ACCOUNTING-WORKS', { os_family: 'windows', product: 'rdp-login-monitor', ipv4: '10.20.0.2' }),
      refresh('ws-02', { os_family: 'linux', product: 'ssh-monitor', fqdn: 'ws-02.corp.example' }),
    ]);
    const name = async (a: string) => {
      const m = await findGatewayHost(s.pg, a);
      return m.host?.hostname ?? (m.ambiguous.length ? `ambiguous: ${m.ambiguous.join(', ')}` : null);
    };
    for (const typed of ['ws-01.corp.example', 'WS-01.CORP.EXAMPLE', 'WS-01', 'ws-01', 'ws-01.corp.example.', ' ws-01 '])
      expect([typed, await name(typed)]).toEqual([typed, 'WS-01']);
    expect(await name('10.20.0.1')).toBe('WS-01');
    // A DNS label longer than 15 characters: Windows cut it for the NetBIOS name.
    expect(await name('accounting-workstation.corp.example')).toBeNull();
    await upsert([refresh('ACCOUNTING-WORK', { os_family: 'windows', product: 'rdp-login-monitor' })]);
    expect(await name('accounting-workstation.corp.example')).toBe('ACCOUNTING-WORK');
    // A Linux host is never a gateway target, whatever its names.
    expect(await name('ws-02.corp.example')).toBeNull();
    expect(await name('ws-03.corp.example')).toBeNull();

    // A second Windows host whose FQDN has the same first label: which one the client meant is unknown.
    await upsert([refresh('WS-01-OLD', { os_family: 'windows', product: 'rdp-login-monitor', fqdn: 'ws-01.branch.example' })]);
    expect(await name('ws-01.corp.example')).toBe('ambiguous: WS-01, WS-01-OLD');
    expect(await name('WS-01.other.example')).toBe('ambiguous: WS-01, WS-01-OLD');
    // The exact name still tells them apart: a hostname, or an FQDN one host has...
    expect(await name('ws-01')).toBe('WS-01');
    expect(await name('ws-01.branch.example')).toBe('WS-01-OLD');
    // ...and an admin-set internal address beats every name match.
    await s.pg.query(`UPDATE hosts SET internal_address = 'ws-01.corp.example' WHERE hostname = 'WS-01'`);
    expect(await name('ws-01.corp.example')).toBe('WS-01');
  });

  it('pins the SSH host key once, records the admin check and the updated version', async () => {
    await upsert([refresh('ssh-1')]);
    const id = await idOf('ssh-1');
    expect(await pinnedSshHostKey(s.pg, id)).toBeNull();
    expect(await pinnedSshHostKey(s.pg, 999_999)).toBeNull();
    await pinSshHostKey(s.pg, id, 'SHA256:first');
    await pinSshHostKey(s.pg, id, 'SHA256:second');
    expect(await pinnedSshHostKey(s.pg, id)).toBe('SHA256:first');
    const before = new Date();
    await setSshAdminOk(s.pg, id, true);
    const a = await findHost(s.pg, { id }, ['ssh_admin_ok', 'ssh_admin_checked_at']);
    expect(a!.ssh_admin_ok).toBe(true);
    expect(a!.ssh_admin_checked_at!.getTime()).toBeGreaterThanOrEqual(before.getTime() - 5_000);
    await setSshAdminOk(s.pg, id, false);
    expect((await findHost(s.pg, { id }, ['ssh_admin_ok']))!.ssh_admin_ok).toBe(false);
    await setHostProductVersion(s.pg, id, '2.0.0');
    expect((await findHost(s.pg, { id }, ['product_version']))!.product_version).toBe('2.0.0');
  });

  it('lists silent hosts, writes inventories (a JSON null stays jsonb null) and deletes', async () => {
    await upsert([
      refresh('live-quiet', { first_seen: at(-100), last_seen: at(-100) }),
      refresh('live-beat', { first_seen: at(-100), last_seen: at(-1), last_heartbeat: at(-1), first_live_at: at(-1) }),
    ]);
    const silent = (await silentHostnames(s.pg, at(0), 50)).map((x) => x.hostname);
    expect(silent).toContain('live-quiet');
    expect(silent).not.toContain('live-beat');
    expect(silent).toEqual([...silent].sort());

    await withTransaction(s.pg, (c) =>
      writeHostInventories(c, [
        { hostname: 'live-quiet', hardware: { cpu: 4 }, software: null, at: at(-2) },
        { hostname: 'nope', hardware: {}, software: {}, at: at(-2) },
      ]),
    );
    expect(
      await findHost(s.pg, { hostname: 'live-quiet' }, ['inventory_hardware', 'inventory_software', 'inventory_at']),
    ).toEqual({
      inventory_hardware: { cpu: 4 },
      inventory_software: null,
      inventory_at: at(-2),
    });
    const r = await s.pg.query<{ t: string }>(
      `SELECT jsonb_typeof(inventory_software) AS t FROM hosts WHERE hostname = 'live-quiet'`,
    );
    expect(r.rows[0]!.t).toBe('null');

    const id = await idOf('live-quiet');
    expect(await withTransaction(s.pg, (c) => deleteHostRow(c, id))).toBe('live-quiet');
    expect(await withTransaction(s.pg, (c) => deleteHostRow(c, id))).toBeNull();
    expect(await findHost(s.pg, { id }, ['id'])).toBeNull();
  });

  it("reads for the API: filtered page with total, detail with live problems of visible types, counts, a problem's host", async () => {
    const now = new Date();
    const hourAgo = new Date(now.getTime() - 60 * MIN);
    await upsert([
      refresh('view-a_1', { display_name: 'Alpha', first_seen: now, last_seen: now, last_heartbeat: now, first_live_at: now }),
      refresh('view-b', { display_name: '100% beta', first_seen: hourAgo, last_seen: hourAgo }),
    ]);
    await s.pg.query(
      `INSERT INTO problems (id, status, fingerprint, host, type, rule, title, severity, count, created_at, last_seen, resolved_at)
       SELECT gen_random_uuid(), st, fp, host, type, 'r', 't', 'info', 1, now(), now(),
              CASE WHEN st = 'resolved' THEN now() END
         FROM (VALUES ('open', 'f1', 'view-a_1', 'shown'), ('acknowledged', 'f2', 'view-a_1', 'shown'),
                      ('open', 'f3', 'view-a_1', 'hidden'), ('resolved', 'f4', 'view-a_1', 'shown'),
                      ('open', 'f5', 'gone-host', 'shown')) AS v(st, fp, host, type)`,
    );
    const o = { staleMinutes: 5, hiddenTypes: ['hidden'] };
    const all = await listHostViews(s.pg, o, { search: 'view-' }, 10, 0);
    expect(all.total).toBe(2);
    expect(all.rows.map((h) => [h.hostname, h.status, h.live_problems])).toEqual([
      ['view-a_1', 'online', 2],
      ['view-b', 'stale', 0],
    ]);
    // LIKE wildcards in the search match literally.
    expect(likeContains('a_1%')).toBe('%a\\_1\\%%');
    expect((await listHostViews(s.pg, o, { search: 'A_1' }, 10, 0)).rows.map((h) => h.hostname)).toEqual(['view-a_1']);
    expect((await listHostViews(s.pg, o, { search: '100%' }, 10, 0)).rows.map((h) => h.hostname)).toEqual(['view-b']);
    const stale = await listHostViews(s.pg, o, { search: 'view', status: 'stale' }, 10, 0);
    expect([stale.total, stale.rows.map((h) => h.hostname)]).toEqual([1, ['view-b']]);
    const page2 = await listHostViews(s.pg, o, { search: 'view' }, 1, 1);
    expect([page2.total, page2.rows.map((h) => h.hostname)]).toEqual([2, ['view-b']]);

    const id = await idOf('view-a_1');
    const v = await getHostView(s.pg, { staleMinutes: 5, hiddenTypes: [] }, id);
    expect(v).toMatchObject({ id, hostname: 'view-a_1', display_name: 'Alpha', status: 'online', live_problems: 3 });
    expect(v).not.toHaveProperty('ssh_host_key_sha256');
    expect(await getHostView(s.pg, o, 999_999)).toBeNull();

    const counts = await hostCounts(s.pg, 5);
    const expected = await s.pg.query<{ total: number; online: number }>(
      `SELECT count(*)::int AS total, count(*) FILTER (WHERE COALESCE(last_heartbeat, first_seen) >= now() - interval '5 minutes')::int AS online FROM hosts`,
    );
    expect({ total: counts.total, online: counts.online }).toEqual(expected.rows[0]);
    expect(counts.online).toBeGreaterThanOrEqual(1);

    const j = problemHostJoin('p');
    const rows = await s.pg.query<{ host: string; host_id: number | null; display_name: string | null }>(
      `SELECT p.host, ${j.columns} FROM problems p ${j.join} WHERE p.fingerprint IN ('f1', 'f5') ORDER BY p.fingerprint`,
    );
    expect(rows.rows).toEqual([
      { host: 'view-a_1', host_id: id, display_name: 'Alpha' },
      { host: 'gone-host', host_id: null, display_name: null },
    ]);
  });
});
