// Events search, top values and histogram (issue 23) through the real app and real logins, on the
// 18.16 server of the stack and on a current engine (chDB) with the same dataset
// (testkit/src/reads-fixtures.ts): the new SQL must answer the same on both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClickHouseClient } from '@watchpost/runtime';
import { applyClickhouseMigrations } from '@watchpost/core/migrate';
import { createChdbClient } from '@watchpost/testkit/chdb';
import { addUser, createApiHarness, loadFixture, login, type ApiHarness, type Fixture } from '@watchpost/testkit/api';

const MIN = 60_000;
const HOUR = 60 * MIN;

interface Engine {
  h: ApiHarness;
  fx: Fixture;
  token: string;
}
const engines: Record<'18.16' | 'chDB', Engine> = {} as never;
let chdb: ClickHouseClient;

async function setUp(name: string, clickhouse?: ClickHouseClient): Promise<Engine> {
  const h = await createApiHarness(name, clickhouse ? { stores: () => ({ clickhouse }) } : {});
  const fx = await loadFixture(h.stores.pg, clickhouse ?? h.stores.ch);
  await addUser(h, 'max', 'monitor');
  const token = (await login(h, 'max', 'pw-max-secret')).json().access_token as string;
  return { h, fx, token };
}

beforeAll(async () => {
  engines['18.16'] = await setUp('evsearch');
  chdb = createChdbClient();
  await applyClickhouseMigrations(chdb);
  engines.chDB = await setUp('evsearch_chdb', chdb);
}, 120_000);

afterAll(async () => {
  for (const e of Object.values(engines)) await e?.h.close();
  await chdb?.close();
});

describe.each(['18.16', 'chDB'] as const)('events search on ClickHouse %s', (engine) => {
  const e = () => engines[engine];
  async function get(path: string) {
    const r = await e().h.app.inject({ method: 'GET', url: `/api/v1${path}`, headers: { authorization: `Bearer ${e().token}` } });
    if (r.statusCode >= 500) console.log(path, r.body);
    return { status: r.statusCode, body: r.json() };
  }
  const keys = (items: { event_id: string }[]) =>
    items.map((i) => Object.entries(e().fx.ids).find(([, id]) => id === i.event_id)?.[0]);
  const list = async (qs: string) => {
    const { status, body } = await get(`/events?page_size=100&${qs}`);
    expect(status).toBe(200);
    expect(body.items).toHaveLength(body.total);
    return keys(body.items).sort();
  };
  const iso = (ago: number) => encodeURIComponent(e().fx.at(ago).toISOString());

  it('q: substring of title and summary, prefix of user, address, hostname and display name, ignoring case', async () => {
    expect(await list('q=ROO')).toEqual(['E1']); // user root
    expect(await list('q=203.0.113')).toEqual(['E1']); // source address prefix
    expect(await list('q=113.7')).toEqual([]); // ...not a substring of it
    expect(await list('q=e13')).toEqual(['E13']); // title/summary substring
    expect(await list('q=LOGIN.failed')).toEqual(['E1', 'E13', 'E14', 'E2']);
    expect(await list('q=Gamma%20D')).toEqual(['E10']); // display name "Gamma Db" as shown
    expect(await list(`q=${encodeURIComponent('100%_')}`)).toEqual([]); // no pattern characters
    // Hidden types stay hidden: E9 (noisy.debug on beta) matches the text but is left out.
    expect(await list('q=noisy')).toEqual([]);
    expect(await list('q=beta')).not.toContain('E9');
    // The override applies with a search: E11's high is critical.
    expect(await list('q=bruteforce&severity=critical')).toEqual(['E11']);
    expect(await list('q=bruteforce&severity=high')).toEqual([]);
  });

  it('user and source_ip: exact (user ignoring case) or a prefix ending in *', async () => {
    expect(await list('user=ROOT')).toEqual(['E1']);
    expect(await list('user=ro')).toEqual([]);
    expect(await list('user=b*')).toEqual(['E7']);
    expect(await list('user=carol&hostname=beta')).toEqual(['E5']);
    expect(await list('source_ip=203.0.113.7')).toEqual(['E1']);
    expect(await list('source_ip=203.0.113.*')).toEqual(['E1']);
    expect(await list('source_ip=203.0.113')).toEqual([]);
  });

  it('hostname: the hostname or the display name ignoring case, a prefix when it ends in *', async () => {
    const beta = ['E12', 'E13', 'E15', 'E5', 'E6', 'E7', 'E8'];
    expect(await list('hostname=beta')).toEqual(beta);
    expect(await list('hostname=BETA')).toEqual(beta);
    expect(await list('hostname=Beta%20DC')).toEqual(beta);
    expect(await list('hostname=BE')).toEqual([]);
    expect(await list('hostname=BE*')).toEqual(beta);
    expect(await list('hostname=gam*')).toEqual(['E10']);
    expect(await list('hostname=delta*')).toEqual([]);
  });

  it('from/to as instants with an offset (not whole UTC days)', async () => {
    // [base-2h, base-30min] written in UTC+02:00 and UTC-05:00.
    const at = (ago: number, offMin: number) => {
      const d = new Date(e().fx.at(ago).getTime() + offMin * MIN);
      const sign = offMin >= 0 ? '+' : '-';
      const o = Math.abs(offMin);
      const off = `${sign}${String(Math.floor(o / 60)).padStart(2, '0')}:${String(o % 60).padStart(2, '0')}`;
      return encodeURIComponent(d.toISOString().slice(0, 19) + off);
    };
    const want = ['E1', 'E12', 'E15', 'E2', 'E5'];
    expect(await list(`from=${at(2 * HOUR, 120)}&to=${at(30 * MIN, -300)}`)).toEqual(want);
    expect(await list(`from=${iso(2 * HOUR)}&to=${iso(30 * MIN)}`)).toEqual(want);
    expect((await get('/events?from=yesterday')).status).toBe(400);
  });

  it('facets: the top values of the matching events, most first', async () => {
    const { status, body } = await get(`/events/facets?from=${iso(24 * HOUR)}&to=${iso(0)}`);
    expect(status).toBe(200);
    expect(body.hostname).toEqual([
      { value: 'beta', label: 'Beta DC', events: 7 },
      { value: 'alpha', label: 'Alpha Web', events: 5 },
    ]);
    expect(body.type[0]).toEqual({ value: 'ssh.login.failed', events: 3 });
    expect(body.type).toHaveLength(5);
    expect(body.type.map((t: { value: string }) => t.value)).not.toContain('noisy.debug');
    expect(body.actor_user).toEqual([
      { value: 'bob', events: 1 },
      { value: 'carol', events: 1 },
      { value: 'root', events: 1 },
    ]);
    expect(body.source_ip).toEqual([{ value: '203.0.113.7', events: 1 }]);
    const narrowed = (await get('/events/facets?q=login&limit=1')).body;
    expect(narrowed.hostname).toEqual([{ value: 'alpha', label: 'Alpha Web', events: 3 }]);
    expect(narrowed.type).toEqual([{ value: 'ssh.login.failed', events: 4 }]);
  });

  it('histogram: every bucket of the range, sized to it, empty ones as 0, exact counts', async () => {
    const day = (await get(`/events/histogram?from=${iso(24 * HOUR)}&to=${iso(0)}`)).body;
    expect(day.bucket_seconds).toBe(3600);
    expect(day.buckets.length).toBeGreaterThanOrEqual(24);
    expect(day.buckets.length).toBeLessThanOrEqual(25);
    expect(day.buckets.reduce((a: number, b: { events: number }) => a + b.events, 0)).toBe(12);
    expect(day.buckets.filter((b: { events: number }) => b.events === 0).length).toBeGreaterThan(10);
    const hour = (await get(`/events/histogram?from=${iso(HOUR)}&to=${iso(0)}`)).body;
    expect(hour.bucket_seconds).toBe(300);
    expect(hour.buckets.reduce((a: number, b: { events: number }) => a + b.events, 0)).toBe(7);
    for (const [i, b] of hour.buckets.entries()) {
      expect(new Date(b.start).getTime() % (300 * 1000)).toBe(0);
      if (i > 0) expect(new Date(b.start).getTime() - new Date(hour.buckets[i - 1].start).getTime()).toBe(300_000);
    }
    // With a search the hourly counts come from `events`, not the rollup.
    const agent = (await get(`/events/histogram?q=heartbeat&from=${iso(24 * HOUR)}&to=${iso(0)}`)).body;
    expect(agent.buckets.reduce((a: number, b: { events: number }) => a + b.events, 0)).toBe(2);
    const week = (await get(`/events/histogram?from=${iso(7 * 24 * HOUR)}&to=${iso(0)}`)).body;
    expect(week.bucket_seconds).toBe(6 * 3600);
    expect(week.buckets.reduce((a: number, b: { events: number }) => a + b.events, 0)).toBe(14);
    const quarter = (await get(`/events/histogram?from=${iso(15 * MIN)}&to=${iso(0)}`)).body;
    expect(quarter.bucket_seconds).toBe(60);
    expect(quarter.buckets.reduce((a: number, b: { events: number }) => a + b.events, 0)).toBe(1); // E3
  });
});

describe('the two engines', () => {
  it('answer the same for a set of searches', async () => {
    const ask = async (e: Engine, path: string) => {
      const r = await e.h.app.inject({ method: 'GET', url: `/api/v1${path}`, headers: { authorization: `Bearer ${e.token}` } });
      return r.json();
    };
    for (const p of ['/events/facets?q=a', '/events/facets?hostname=al*&user=r*', '/events?q=e1&page_size=100']) {
      const a = await ask(engines['18.16'], p);
      const b = await ask(engines.chDB, p);
      if ('items' in a) {
        expect(a.total).toBe(b.total);
        expect(a.items.map((i: { title: string }) => i.title)).toEqual(b.items.map((i: { title: string }) => i.title));
      } else expect(a).toEqual(b);
    }
  });
});
