// The events list (total, and which rows each page holds) is the same whether its hours are counted
// from `events` (pending) or from the hourly rollup, for every filter, for ranges that start and end
// inside an hour, and with events stored twice; so are the top hosts, types, users and source
// addresses, also after more events reach hours already rolled up. Checked against a brute-force
// answer computed here, on the 18.16 server and on a current engine (chDB). Real Postgres.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execSql, queryRows, type ClickHouseClient } from '@watchpost/runtime';
import { sql } from '@watchpost/runtime';
import type { Severity } from '@watchpost/schemas';
import type { EventEnvelope } from '@watchpost/schemas';
import { createTestStores, testConfig, type TestStores } from '@watchpost/testkit';
import { createChdbClient } from '@watchpost/testkit/chdb';
import { applyClickhouseMigrations } from '@watchpost/core/migrate';
import { runHourlyRollup } from '@watchpost/testkit/api';
import { fixtureEnvelope, insertEnvelopes, type FixtureEvent } from '@watchpost/testkit/api';
import { eventFacets, listEvents, pageBound, resolveHostFilter, textPrefixFields, type EventFilters } from './events.ts';
import { forgetHostValues } from './hourly.ts';
import type { TypeSettings } from './type-settings.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
let s: TestStores;
const base = new Date(Math.floor(Date.now() / HOUR) * HOUR - 30 * MIN);
const DAY = 24 * HOUR;
const day0 = Math.floor(base.getTime() / DAY) * DAY;
const hosts: FixtureEvent['host'][] = ['alpha', 'beta', 'gamma'];
const types = ['ssh.login.failed', 'rdg.connection.success', 'rdg.connection.failed', 'rdg.connectionx', 'agent.heartbeat'];
const sevs: Severity[] = ['info', 'warning', 'high', 'critical'];
// Users and addresses skewed (a few common, ties too), some events without them.
const details = (i: number) => ({
  ...(i % 4 === 3 ? {} : { user: `u${(i * i) % 7}` }),
  ...(i % 6 === 5 ? {} : { source_ip: `198.51.100.${(i * 5) % 9}` }),
});
// 120 events over ~6 hours, then 60 more over the 3 days before (whole UTC days for the day rows),
// spread over hosts, types and severities; distinct occurred_at seconds.
const ago = (i: number) => (i < 120 ? i * 3 * MIN : 6 * HOUR + (i - 120) * 71 * MIN) + 17_000;
const envs: EventEnvelope[] = Array.from({ length: 180 }, (_, i) =>
  fixtureEnvelope(
    {
      key: `L${i}`,
      host: hosts[i % 3]!,
      type: types[i % 5]!,
      severity: sevs[(i * 7) % 4]!,
      ago: ago(i),
      details: details(i),
    },
    base,
  ),
);
// Later arrivals in hours already rolled up (new users and addresses, and more of the common ones).
const late: EventEnvelope[] = Array.from({ length: 24 }, (_, i) =>
  fixtureEnvelope(
    {
      key: `M${i}`,
      host: hosts[i % 3]!,
      type: types[(i + 2) % 5]!,
      severity: sevs[i % 4]!,
      ago: i * 151 * MIN + 29_000,
      details: { user: i % 2 ? `late${i % 5}` : 'u1', source_ip: `203.0.113.${i % 3}` },
    },
    base,
  ),
);
const all = [...envs];
const ts: TypeSettings = { overrides: new Map([['agent.heartbeat', 'high']]), hidden: new Set(['rdg.connection.failed']) };

const detailOf = (e: EventEnvelope, k: string) => {
  const v = (e.event.details as Record<string, unknown> | undefined)?.[k];
  return typeof v === 'string' ? v : '';
};

/** What the list must answer, computed from the events themselves. */
function expected(f: EventFilters): EventEnvelope[] {
  return all
    .filter((e) => {
      const ev = e.event;
      const at = Date.parse(ev.occurred_at);
      const sev = ts.overrides.get(ev.type) ?? ev.severity;
      if (ts.hidden.has(ev.type)) return false;
      if (f.hostname !== undefined && ev.host.hostname !== f.hostname) return false;
      if (f.typePrefix !== undefined && ev.type !== f.typePrefix && !ev.type.startsWith(`${f.typePrefix}.`)) return false;
      if (f.severities && !f.severities.includes(sev)) return false;
      if (f.from && at < f.from.getTime()) return false;
      if (f.toExclusive && at >= f.toExclusive.getTime()) return false;
      const user = detailOf(e, 'user').toLowerCase();
      if (
        f.user !== undefined &&
        !(f.user.endsWith('*') ? user.startsWith(f.user.slice(0, -1).toLowerCase()) : user === f.user.toLowerCase())
      )
        return false;
      const ip = detailOf(e, 'source_ip');
      if (f.sourceIp !== undefined && !(f.sourceIp.endsWith('*') ? ip.startsWith(f.sourceIp.slice(0, -1)) : ip === f.sourceIp))
        return false;
      if (f.text !== undefined) {
        const t = f.text.toLowerCase();
        const starts = (v: string) => v.toLowerCase().startsWith(t);
        const text = `${ev.title}\n${ev.summary}`.toLowerCase();
        if (
          !text.includes(t) &&
          !starts(user) &&
          !ip.startsWith(f.text) &&
          !starts(ev.host.hostname) &&
          !starts(ev.host.display_name ?? '')
        )
          return false;
      }
      return true;
    })
    .sort((a, b) => Date.parse(b.event.occurred_at) - Date.parse(a.event.occurred_at));
}

const filters: [string, EventFilters][] = [
  ['no filter', {}],
  ['hostname', { hostname: 'beta' }],
  ['type prefix', { typePrefix: 'rdg.connection' }],
  ['severity after the override', { severities: ['high', 'critical'] }],
  [
    'range inside hours at both ends',
    { from: new Date(base.getTime() - 4 * HOUR - 7 * MIN), toExclusive: new Date(base.getTime() - HOUR + 11 * MIN) },
  ],
  ['range on whole hours', { from: new Date(base.getTime() - 3.5 * HOUR), toExclusive: new Date(base.getTime() - 0.5 * HOUR) }],
  [
    'range within one hour',
    { from: new Date(base.getTime() - 2 * HOUR - 20 * MIN), toExclusive: new Date(base.getTime() - 2 * HOUR - 2 * MIN) },
  ],
  ['whole UTC days', { from: new Date(day0 - 2 * DAY), toExclusive: new Date(day0) }],
  ['from a UTC midnight on', { from: new Date(day0 - DAY), typePrefix: 'rdg.connection' }],
  [
    'everything combined',
    { hostname: 'alpha', severities: ['info', 'warning', 'high'], from: new Date(base.getTime() - 5 * HOUR - 1000) },
  ],
];

// A user or address alone over more than two days: totals (and how far back pages read) from the values
// rollup (whole days from its day rows, whole hours from its hour rows, the rest from `events`).
const valueFilters: [string, EventFilters][] = [
  ['user in another case, 3 days', { user: 'U1', from: new Date(day0 - 3 * DAY) }],
  ['user prefix, no bounds', { user: 'LATE*' }],
  [
    'user, range inside hours at both ends',
    { user: 'u2', from: new Date(day0 - 3 * DAY - 17 * MIN), toExclusive: new Date(base.getTime() - HOUR + 11 * MIN) },
  ],
  ['user with type and severity', { user: 'u4', typePrefix: 'rdg.connection', severities: ['info', 'high', 'critical'] }],
  ['source address, 3 days', { sourceIp: '198.51.100.4', from: new Date(day0 - 3 * DAY) }],
  ['source address prefix, no bounds', { sourceIp: '203.0.113.*' }],
  ['user nobody has, no bounds', { user: 'nobody' }],
];

// Free text: a substring of title or summary, or the start of the user, the address, the hostname or the
// display name. Over more than two days each request reads only the fields textPrefixFields finds a
// match in (the rest of the condition is left out): `fields` is what it must find when all events are in.
const textFilters: [string, EventFilters, string[]][] = [
  ['text in titles only', { text: 'L1' }, []],
  ['text: a user prefix, only in late events', { text: 'LATE' }, ['actor_user']],
  ['text: an address prefix, 3 days', { text: '198.51.100.', from: new Date(day0 - 3 * DAY) }, ['source_ip']],
  ['text: an address prefix of late events only', { text: '203.0' }, ['source_ip']],
  ['text: a display name prefix', { text: 'gamma D' }, ['host']],
  ['text: a hostname and title word, 3 days', { text: 'alph', from: new Date(day0 - 3 * DAY) }, ['host']],
  [
    'text: a hostname, 3.5 hours (all fields read)',
    { text: 'alph', from: new Date(base.getTime() - 3.5 * HOUR) },
    ['actor_user', 'source_ip', 'host'],
  ],
  [
    'text: a user prefix within hours (all fields read)',
    { text: 'U4', from: new Date(base.getTime() - 4 * HOUR - 7 * MIN), toExclusive: new Date(base.getTime() - HOUR + 11 * MIN) },
    ['actor_user', 'source_ip', 'host'],
  ],
  [
    'text: a user prefix, 3 days ending inside an hour',
    { text: 'u4', from: new Date(day0 - 3 * DAY), toExclusive: new Date(base.getTime() - HOUR + 11 * MIN) },
    ['actor_user'],
  ],
  ['text nobody has', { text: 'zzz' }, []],
  ['text in titles of late events', { text: 'm1' }, []],
];
const twice = new Set(envs.slice(0, 40).map((e) => e.event.event_id));

/** The filters as the route passes them: free text with the fields it can match (textPrefixFields). */
async function withTextFields(ch: ClickHouseClient, f: EventFilters): Promise<EventFilters> {
  return f.text === undefined ? f : { ...f, textFields: await textPrefixFields(ch, f.text, f) };
}

/** The cases of one state side by side (each is read-only): one after the other took 150 s of the gate. */
async function eachCase<T>(cases: T[], fn: (c: T) => Promise<void>, width = 4): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < cases.length) await fn(cases[next++]!);
    }),
  );
}

async function check(ch: ClickHouseClient, label: string) {
  await eachCase([...filters, ...valueFilters, ...textFilters], async ([name, unresolved]) => {
    const f = await withTextFields(ch, unresolved);
    const want = expected(f).map((e) => e.event.event_id);
    for (const [page, size] of [
      [1, 7],
      [2, 7],
      [3, 11],
      [1, 200],
      [50, 10],
    ] as const) {
      const r = await listEvents(ch, s.pg, ts, f, page, size);
      expect({ label, name, page, total: r.total, ids: r.items.map((x) => x.event_id) }).toEqual({
        label,
        name,
        page,
        total: want.length,
        ids: want.slice((page - 1) * size, page * size),
      });
    }
  });
}

/**
 * Top hosts and types, and users and addresses where their rollup answers (no host filter), in
 * distinct events, most first, ties by value, against the brute-force answer.
 */
async function checkFacets(ch: ClickHouseClient, label: string) {
  await eachCase([...filters, ...textFilters], async ([name, unresolved]) => {
    const f = await withTextFields(ch, unresolved);
    // With free text the top values count rows: an event stored twice counts twice until merged.
    if (f.text !== undefined && expected(f).some((e) => twice.has(e.event.event_id))) return;
    const top = (pick: (e: EventEnvelope) => string, limit = 10) => {
      const n = new Map<string, number>();
      for (const e of expected(f)) if (pick(e) !== '') n.set(pick(e), (n.get(pick(e)) ?? 0) + 1);
      return [...n]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, limit)
        .map(([value, events]) => ({ value, events }));
    };
    const detail = (e: EventEnvelope, k: string) => {
      const v = (e.event.details as Record<string, unknown> | undefined)?.[k];
      return typeof v === 'string' ? v : '';
    };
    const r = await eventFacets(ch, ts, f, 10);
    const got = { label, name, hostname: r.hostname.map(({ value, events }) => ({ value, events })), type: r.type };
    const want = { label, name, hostname: top((e) => e.event.host.hostname), type: top((e) => e.event.type) };
    expect(got).toEqual(want);
    if (f.hostname !== undefined) return;
    expect({ label, name, actor_user: r.actor_user, source_ip: r.source_ip }).toEqual({
      label,
      name,
      actor_user: top((e) => detail(e, 'user')),
      source_ip: top((e) => detail(e, 'source_ip')),
    });
    // A shorter list is the head of the longer one (the limit applies after summing hours).
    const three = await eventFacets(ch, ts, f, 3);
    expect([three.actor_user, three.source_ip]).toEqual([
      top((e) => detail(e, 'user'), 3),
      top((e) => detail(e, 'source_ip'), 3),
    ]);
  });
}

let chdb: ClickHouseClient;
beforeAll(async () => {
  s = await createTestStores(testConfig('listrollup'), { kafka: false });
  chdb = createChdbClient();
  await applyClickhouseMigrations(chdb);
  for (const ch of [s.ch, chdb]) {
    await insertEnvelopes(ch, envs);
    await insertEnvelopes(ch, envs.slice(0, 40)); // stored twice (a replay): still counted once (`twice`)
  }
}, 120_000);
afterAll(async () => {
  await chdb?.close();
  await s?.drop();
});

describe.each(['18.16', 'chDB'] as const)('events list over the hourly rollup on ClickHouse %s', (engine) => {
  const db = () => (engine === '18.16' ? { ch: s.ch, database: s.config.clickhouseDatabase } : { ch: chdb, database: 'default' });
  const rollup = async () => {
    await new Promise((r) => setTimeout(r, 1100));
    await runHourlyRollup(db().ch, db().database, { overlapSeconds: 0 });
    const pending = await queryRows<{ n: string }>(
      db().ch,
      sql`SELECT count() AS n FROM events_changed_hours WHERE changed_at >= (SELECT max(watermark) FROM events_hourly_state)`,
    );
    expect(Number(pending[0]!.n)).toBe(0);
  };

  it('answers the same before the rollup (every hour pending), after it, after late events in rolled-up hours and after a host is deleted', async () => {
    const { ch } = db();
    all.splice(0, all.length, ...envs);
    await check(ch, 'pending');
    await checkFacets(ch, 'pending');
    await rollup();
    await check(ch, 'rolled up');
    await checkFacets(ch, 'rolled up');
    // Late events: their hours pending again (read from `events`), then rolled up with a newer version.
    await insertEnvelopes(ch, late);
    all.push(...late);
    await checkFacets(ch, 'late, pending');
    await check(ch, 'late, pending');
    await rollup();
    await checkFacets(ch, 'late, rolled up');
    await check(ch, 'late, rolled up');
    // The narrowing happens (a search reads fewer columns), from the rollups and from pending hours alike.
    for (const [name, f, fields] of textFilters)
      expect({ name, fields: await textPrefixFields(ch, f.text!, f) }).toEqual({ name, fields });
    // A host deleted (as deleteHost does): its hours lose their marker and count from `events`, until
    // the rollup recomputes them once the mutation is applied.
    await forgetHostValues(ch, 'gamma', { database: db().database, cluster: '' });
    await execSql(ch, sql`ALTER TABLE events DELETE WHERE hostname = 'gamma'`);
    await execSql(ch, sql`ALTER TABLE events_hourly DELETE WHERE hostname = 'gamma'`);
    for (let left = 1; left > 0; await new Promise((r) => setTimeout(r, 200)))
      left = Number(
        (
          await queryRows<{ n: string }>(
            ch,
            sql`SELECT count() AS n FROM system.mutations WHERE database = currentDatabase() AND is_done = 0`,
          )
        )[0]!.n,
      );
    all.splice(0, all.length, ...all.filter((e) => e.event.host.hostname !== 'gamma'));
    await checkFacets(ch, 'host deleted, pending');
    await rollup();
    const unmarked = await queryRows<{ n: string }>(
      ch,
      sql`SELECT count() AS n FROM events_hourly WHERE hour NOT IN (SELECT hour FROM events_hourly_values WHERE field = '')`,
    );
    expect(Number(unmarked[0]!.n)).toBe(0);
    await checkFacets(ch, 'host deleted, rolled up');
    await check(ch, 'host deleted, rolled up');
  }, 300_000);

  it('resolves a display name prefix from whole hours of events_host_names and from events at the partial edges', async () => {
    const { ch } = db();
    // alpha shown as "Renamed Box" by one event 20 min into an hour (then "Alpha Web" again).
    const at = Math.floor(base.getTime() / HOUR) * HOUR - 5 * HOUR + 20 * MIN;
    const env = fixtureEnvelope({ key: 'R1', host: 'alpha', type: types[0]!, severity: 'info', ago: base.getTime() - at }, base);
    env.event.host.display_name = 'Renamed Box';
    await insertEnvelopes(ch, [env]);
    const hostsFor = async (from?: number, to?: number) =>
      (
        await resolveHostFilter(ch, 'renamed b*', {
          from: from === undefined ? undefined : new Date(from),
          toExclusive: to === undefined ? undefined : new Date(to),
        })
      ).filter((h) => h !== 'renamed b');
    const hour = at - 20 * MIN;
    expect(await hostsFor()).toEqual(['alpha']);
    expect(await hostsFor(hour, hour + HOUR)).toEqual(['alpha']); // a whole hour
    expect(await hostsFor(hour - 3 * HOUR, hour + 3 * HOUR)).toEqual(['alpha']);
    expect(await hostsFor(at - MIN, at + MIN)).toEqual(['alpha']); // inside one hour
    expect(await hostsFor(at + 1000, hour + 2 * HOUR)).toEqual([]); // starts after it in its hour
    expect(await hostsFor(hour - HOUR, at)).toEqual([]); // ends before it in its hour
    expect(await hostsFor(hour - 2 * HOUR, hour)).toEqual([]);
    expect(await hostsFor(hour + HOUR)).toEqual([]);
    // Exact display names too, ignoring case; hostnames still found.
    expect(await resolveHostFilter(ch, 'RENAMED BOX', { from: new Date(hour) })).toEqual(['RENAMED BOX', 'alpha']);
    expect(await resolveHostFilter(ch, 'alph*', { from: new Date(hour + HOUR) })).toEqual(['alph', 'alpha']);
  }, 60_000);
});

describe('pageBound', () => {
  it('pageBound: the start of the newest hours holding n events', () => {
    const byHour = new Map([
      [7200, 5],
      [3600, 4],
      [0, 10],
    ]);
    expect(pageBound(byHour, 5)).toEqual(new Date(7200 * 1000));
    expect(pageBound(byHour, 6)).toEqual(new Date(3600 * 1000));
    expect(pageBound(byHour, 19)).toEqual(new Date(0));
    expect(pageBound(byHour, 20)).toBeUndefined();
  });
});
