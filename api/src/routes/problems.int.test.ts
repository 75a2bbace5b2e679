// The problems workflow through the real app on the real Postgres and Redis: sort orders, the bulk
// acknowledge/resolve route (mixed states, unknown ids, a monitor's rights), the operator's message in
// the detail, the audit rows of every act, and the live messages they publish.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createApiHarness, login, type ApiHarness } from '@watchpost/testkit/api';
import { callApi } from '../test-helpers/api-calls.ts';

let h: ApiHarness;
let admin: string;
let monitor: string;

const MIN = 60_000;

interface Seed {
  key: string;
  status: 'open' | 'acknowledged' | 'resolved';
  severity: 'info' | 'warning' | 'high' | 'critical';
  count: number;
  /** minutes ago */
  created: number;
  lastSeen: number;
  type?: string;
}

// Sort keys chosen so that each order differs from the others.
const SEEDS: Seed[] = [
  { key: 'A', status: 'open', severity: 'warning', count: 5, created: 50, lastSeen: 40 },
  { key: 'B', status: 'open', severity: 'critical', count: 1, created: 40, lastSeen: 30 },
  { key: 'C', status: 'acknowledged', severity: 'info', count: 9, created: 30, lastSeen: 1 },
  { key: 'D', status: 'resolved', severity: 'high', count: 3, created: 20, lastSeen: 15 },
  // info stored, overridden to critical: sorts with the critical ones
  { key: 'E', status: 'open', severity: 'info', count: 2, created: 10, lastSeen: 5, type: 'pt.override' },
];
const ids: Record<string, string> = {};
const now = Date.now();

const call = (method: 'GET' | 'POST', path: string, token: string, payload?: unknown) =>
  callApi(h.app, method, path, token, payload);
const keysOf = (items: { id: string }[]) => items.map((i) => Object.keys(ids).find((k) => ids[k] === i.id));

async function auditRows(target: string) {
  const r = await h.stores.pg.query<{ actor: string; action: string; target: string; details: Record<string, unknown> }>(
    'SELECT actor, action, target, details FROM audit_log WHERE target = $1 ORDER BY id',
    [target],
  );
  return r.rows;
}

beforeAll(async () => {
  h = await createApiHarness('problems-workflow');
  await addUser(h, 'ada', 'admin');
  await addUser(h, 'max', 'monitor');
  admin = (await login(h, 'ada', 'pw-ada-secret')).json().access_token;
  monitor = (await login(h, 'max', 'pw-max-secret')).json().access_token;
  await h.stores.pg.query(
    `INSERT INTO event_type_settings (type, severity_override, visible, updated_by) VALUES ('pt.override', 'critical', true, 't')`,
  );
  for (const s of SEEDS) {
    const id = randomUUID();
    ids[s.key] = id;
    const created = new Date(now - s.created * MIN);
    const type = s.type ?? 'pt.check';
    await h.stores.pg.query(
      `INSERT INTO problems (id, status, fingerprint, host, type, rule, title, severity, count, created_at, last_seen,
         acknowledged_at, acknowledged_by, resolved_at, resolved_by, resolved_by_user)
       VALUES ($1, $2, $3, 'pt-host', $4, 'severity', $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        id,
        s.status,
        `pt-host|${type}|${s.key}`,
        type,
        `problem ${s.key}`,
        s.severity,
        s.count,
        created,
        new Date(now - s.lastSeen * MIN),
        s.status === 'acknowledged' ? created : null,
        s.status === 'acknowledged' ? 'seed' : null,
        s.status === 'resolved' ? created : null,
        s.status === 'resolved' ? 'manual' : null,
        s.status === 'resolved' ? 'seed' : null,
      ],
    );
  }
});

afterAll(async () => {
  await h?.close();
});

describe('GET /problems sort', () => {
  it('orders by last seen, count, severity (effective) in both directions; newest created by default', async () => {
    const order = async (sort?: string) =>
      keysOf((await call('GET', `/problems${sort ? `?sort=${sort}` : ''}`, monitor)).body.items);
    expect(await order()).toEqual(['E', 'D', 'C', 'B', 'A']);
    expect(await order('created_at')).toEqual(['A', 'B', 'C', 'D', 'E']);
    expect(await order('-last_seen')).toEqual(['C', 'E', 'D', 'B', 'A']);
    expect(await order('last_seen')).toEqual(['A', 'B', 'D', 'E', 'C']);
    expect(await order('-count')).toEqual(['C', 'A', 'D', 'E', 'B']);
    expect(await order('count')).toEqual(['B', 'E', 'D', 'A', 'C']);
    // E (info overridden to critical) and B are critical: ties newest created first.
    expect(await order('-severity')).toEqual(['E', 'B', 'D', 'A', 'C']);
    expect(await order('severity')).toEqual(['C', 'A', 'D', 'E', 'B']);
  });

  it('sorts within the filters and pages, with the total unchanged', async () => {
    const r = await call('GET', '/problems?status=open&sort=-count&page_size=2&page=2', monitor);
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(3);
    expect(keysOf(r.body.items)).toEqual(['B']);
    expect(keysOf((await call('GET', '/problems?severity=critical&sort=severity', monitor)).body.items)).toEqual(['E', 'B']);
  });

  it('refuses an unknown sort key', async () => {
    expect((await call('GET', '/problems?sort=title', monitor)).status).toBe(400);
  });
});

describe('acknowledge / resolve with a message, audited', () => {
  it('a monitor acknowledges with a message: stored, shown in the detail, audited, published live', async () => {
    const sub = h.redis.duplicate();
    const got: string[] = [];
    await sub.subscribe(h.config.stream.channel);
    sub.on('message', (_c: string, m: string) => got.push(m));
    const r = await call('POST', `/problems/${ids.A}/acknowledge`, monitor, { message: '  looking into it  ' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'acknowledged', acknowledged_by: 'max', acknowledged_message: 'looking into it' });
    const detail = await call('GET', `/problems/${ids.A}`, admin);
    expect(detail.body.acknowledged_message).toBe('looking into it');
    expect(detail.body.resolved_message).toBeNull();
    expect(await auditRows(ids.A!)).toEqual([
      { actor: 'max', action: 'problem.acknowledge', target: ids.A, details: { message: 'looking into it' } },
    ]);
    await expect.poll(() => got.length).toBe(1);
    expect(JSON.parse(got[0]!)).toMatchObject({ kind: 'problems', action: 'acknowledged', problem: { id: ids.A } });
    await sub.quit();
  });

  it('refuses a message over 1000 characters (400) and acts without a body as before', async () => {
    const long = await call('POST', `/problems/${ids.B}/acknowledge`, monitor, { message: 'x'.repeat(1001) });
    expect(long.status).toBe(400);
    expect((await call('GET', `/problems/${ids.B}`, monitor)).body.status).toBe('open');
    const bare = await h.app.inject({
      method: 'POST',
      url: `/api/v1/problems/${ids.B}/acknowledge`,
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(bare.statusCode).toBe(200);
    expect(bare.json()).toMatchObject({ status: 'acknowledged', acknowledged_message: null, acknowledged_by: 'ada' });
    expect(await auditRows(ids.B!)).toEqual([
      { actor: 'ada', action: 'problem.acknowledge', target: ids.B, details: { message: null } },
    ]);
  });

  it('a refused act (409) writes no audit row', async () => {
    const before = (await auditRows(ids.D!)).length;
    const r = await call('POST', `/problems/${ids.D}/resolve`, monitor, { message: 'again' });
    expect(r.status).toBe(409);
    expect(r.body.error.details).toEqual({ reason: 'ALREADY_RESOLVED', status: 'resolved' });
    expect((await auditRows(ids.D!)).length).toBe(before);
  });
});

describe('POST /problems/bulk', () => {
  it('acknowledges the open ones and reports the rest (mixed states, an unknown id), as a monitor', async () => {
    const unknown = randomUUID();
    const r = await call('POST', '/problems/bulk', monitor, {
      ids: [ids.E, ids.C, ids.D, unknown],
      action: 'acknowledge',
      message: 'bulk ack',
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      done: 1,
      conflicts: 2,
      not_found: 1,
      items: [
        { id: ids.E, outcome: 'acknowledged', status: 'acknowledged' },
        { id: ids.C, outcome: 'conflict', reason: 'ALREADY_ACKNOWLEDGED', status: 'acknowledged' },
        { id: ids.D, outcome: 'conflict', reason: 'ALREADY_RESOLVED', status: 'resolved' },
        { id: unknown, outcome: 'not_found' },
      ],
    });
    const e = (await call('GET', `/problems/${ids.E}`, monitor)).body;
    expect(e).toMatchObject({ status: 'acknowledged', acknowledged_by: 'max', acknowledged_message: 'bulk ack' });
    // C keeps its earlier acknowledgement: a refused act changes nothing.
    expect((await call('GET', `/problems/${ids.C}`, monitor)).body).toMatchObject({
      acknowledged_by: 'seed',
      acknowledged_message: null,
    });
    expect(await auditRows(ids.E!)).toEqual([
      { actor: 'max', action: 'problem.acknowledge', target: ids.E, details: { message: 'bulk ack', bulk: true } },
    ]);
    expect(await auditRows(ids.C!)).toEqual([]);
    expect(await auditRows(unknown)).toEqual([]);
  });

  it('resolves open and acknowledged ones together with the message; the resolved one is refused', async () => {
    const r = await call('POST', '/problems/bulk', admin, { ids: [ids.C, ids.E, ids.D], action: 'resolve', message: 'fixed' });
    expect(r.body.done).toBe(2);
    expect(r.body.items.map((i: { outcome: string }) => i.outcome)).toEqual(['resolved', 'resolved', 'conflict']);
    for (const k of ['C', 'E']) {
      const p = (await call('GET', `/problems/${ids[k]}`, monitor)).body;
      expect(p).toMatchObject({ status: 'resolved', resolved_by: 'manual', resolved_by_user: 'ada', resolved_message: 'fixed' });
      expect((await auditRows(ids[k]!)).at(-1)).toEqual({
        actor: 'ada',
        action: 'problem.resolve',
        target: ids[k],
        details: { message: 'fixed', bulk: true },
      });
    }
    // E's acknowledgement message stays next to its acknowledgement.
    expect((await call('GET', `/problems/${ids.E}`, monitor)).body.acknowledged_message).toBe('bulk ack');
  });

  it('validates the body: ids required, unique, uuids, at most 200; action one of two', async () => {
    const bad = [
      {},
      { ids: [], action: 'resolve' },
      { ids: [ids.A, ids.A], action: 'resolve' },
      { ids: ['nope'], action: 'resolve' },
      { ids: [ids.A], action: 'delete' },
      { ids: Array.from({ length: 201 }, () => randomUUID()), action: 'resolve' },
      { ids: [ids.A], action: 'resolve', message: 'x'.repeat(1001) },
    ];
    for (const b of bad) expect((await call('POST', '/problems/bulk', monitor, b)).status).toBe(400);
    expect((await call('GET', `/problems/${ids.A}`, monitor)).body.status).toBe('acknowledged');
  });

  it('needs a login', async () => {
    const r = await h.app.inject({ method: 'POST', url: '/api/v1/problems/bulk', payload: { ids: [ids.A], action: 'resolve' } });
    expect(r.statusCode).toBe(401);
  });

  it('the audit log lists the acts for an admin under action problem', async () => {
    const r = await call('GET', '/audit?action=problem', admin);
    expect(r.status).toBe(200);
    const acts = r.body.items.map(
      (i: { action: string; target: string }) => `${i.action} ${Object.keys(ids).find((k) => ids[k] === i.target)}`,
    );
    expect(acts.sort()).toEqual(
      [
        'problem.acknowledge A',
        'problem.acknowledge B',
        'problem.acknowledge E',
        'problem.resolve C',
        'problem.resolve E',
      ].sort(),
    );
  });
});
