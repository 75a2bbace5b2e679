import { afterEach, describe, expect, it } from 'vitest';
import { Clients, createLogger, type RoleHandle } from '@watchpost/runtime';
import { queryRows } from '@watchpost/runtime';
import { sql } from '@watchpost/runtime';
import { metrics } from '@watchpost/runtime';
import { AGENT_KEY_HEADER, encodeEnvelope } from '@watchpost/schemas';
import { createTestStores, testConfig, type TestStores } from '@watchpost/testkit';
import { storeRole } from './index.ts';
import { envelopeToRow } from './rows.ts';
import { CoalescingInserter, insertEventRows } from './insert.ts';
import { dropExpiredEventPartitions, dropExpiredPartitions } from './retention.ts';
import { runHourlyRollup } from './rollup.ts';
import { makeEnvelope } from '@watchpost/testkit';
import { produce, readAll, waitFor } from '@watchpost/testkit';

const log = createLogger('silent', 'test');
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function stores(env: Record<string, string> = {}): Promise<TestStores> {
  const s = await createTestStores(testConfig('store', { KAFKA_PARTITIONS: '2', STORE_BATCH_MS: '200', ...env }));
  cleanup.push(() => s.drop());
  return s;
}

async function startStore(s: TestStores): Promise<RoleHandle> {
  const clients = new Clients(s.config);
  const handle = await storeRole({ config: s.config, log, clients });
  cleanup.push(async () => {
    await handle.close?.();
    await clients.close();
  });
  return handle;
}

const counts = async (s: TestStores) =>
  (
    await queryRows<{ rows: string; ids: string; final: string }>(
      s.ch,
      sql`SELECT count() AS rows, uniqExact(event_id) AS ids, (SELECT count() FROM events FINAL) AS final FROM events`,
    )
  )[0]!;

describe('TabSeparated insert', () => {
  it('round-trips hostile strings through ClickHouse unchanged', async () => {
    const s = await stores();
    const hostile = [
      'quote \' double " backtick `',
      'tab\there newline\nthere\r\nCRLF',
      'backslash \\ \\t \\n \\\\ end\\',
      'nul \0 bell \x07 bs \b ff \f vt \v esc \x1b',
      'unicode é 漢字 😀 \u2028 \u2029 \uFEFF',
      "'); DROP TABLE events; --",
      "['a','b']\t{\"json\":true}",
      '',
    ];
    const envs = hostile.map((h, i) =>
      makeEnvelope(
        {
          title: h,
          summary: h.repeat(3),
          tags: [h.slice(0, 64), 'x'],
          dedup_key: h,
          fingerprint: h.slice(0, 128),
          details: { user: h, ip: h },
        },
        i,
      ),
    );
    const rows = envs.map((e) => envelopeToRow(e));
    await insertEventRows(s.ch, rows);
    const back = await queryRows<Record<string, unknown>>(
      s.ch,
      sql`SELECT event_id, title, summary, tags, dedup_key, fingerprint, actor_user, source_ip, event_json, toUnixTimestamp(occurred_at) AS occ, toUnixTimestamp(received_at) AS rec FROM events`,
    );
    expect(back).toHaveLength(rows.length);
    for (const r of rows) {
      const b = back.find((x) => x.event_id === r.event_id)!;
      expect(b).toMatchObject({
        title: r.title,
        summary: r.summary,
        tags: r.tags,
        dedup_key: r.dedup_key,
        fingerprint: r.fingerprint,
        actor_user: r.actor_user,
        source_ip: r.source_ip,
        event_json: r.event_json,
      });
      expect(Number(b.occ)).toBe(r.occurred_at);
      expect(Number(b.rec)).toBe(r.received_at);
    }
  });
});

describe('CoalescingInserter', () => {
  it('writes every concurrent batch and settles each caller after its rows landed', async () => {
    const s = await stores();
    const inserter = new CoalescingInserter(s.ch, { maxInFlight: 1 });
    const batches = [0, 1, 2, 3, 4].map((b) => Array.from({ length: 50 }, (_, i) => envelopeToRow(makeEnvelope({}, b * 50 + i))));
    await Promise.all(batches.map((rows) => inserter.insert(rows)));
    expect(await counts(s)).toEqual({ rows: '250', ids: '250', final: '250' });
  });

  it('rejects every batch of a failed insert, so each partition retries its own', async () => {
    const s = await stores();
    const inserter = new CoalescingInserter(s.ch, { table: 'no_such_table', maxInFlight: 1 });
    const results = await Promise.allSettled([0, 1, 2].map((b) => inserter.insert([envelopeToRow(makeEnvelope({}, b))])));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    await expect(inserter.insert([envelopeToRow(makeEnvelope({}, 9))])).rejects.toThrow();
  });
});

describe('store role', () => {
  it('stores events, an event delivered 3 times once, and dead-letters poison messages', async () => {
    const s = await stores();
    const envs = Array.from({ length: 3000 }, (_, i) => makeEnvelope({}, i));
    const repeated = makeEnvelope({ title: 'posted three times' });
    const invalid = makeEnvelope();
    delete (invalid.event as Record<string, unknown>).title;
    await produce(s.config, s.config.topics.events, [
      // Ingest's verified key travels in a header (every other message here), the store records it.
      ...envs.map((e, i) => ({
        key: e.event.host.hostname,
        value: encodeEnvelope(e),
        ...(i % 2 === 1
          ? { headers: { [AGENT_KEY_HEADER]: '42' } }
          : i % 4 === 2
            ? { headers: { [AGENT_KEY_HEADER]: 'x9' } }
            : {}),
      })),
      ...[1, 2, 3].map(() => ({ key: repeated.event.host.hostname, value: encodeEnvelope(repeated) })),
      { key: 'h', value: Buffer.from('not json at all') },
      { key: 'h', value: encodeEnvelope(invalid) },
    ]);
    const handle = await startStore(s);
    await waitFor(
      '3001 events',
      () => counts(s),
      (c) => Number(c.ids) === 3001,
    );
    const c = await counts(s);
    expect(Number(c.final)).toBe(3001);
    const rep = await queryRows<{ n: string; title: string }>(
      s.ch,
      sql`SELECT count() AS n, any(title) AS title FROM events FINAL WHERE event_id = ${repeated.event.event_id}`,
    );
    expect(rep[0]).toEqual({ n: '1', title: 'posted three times' });
    const one = await queryRows<Record<string, unknown>>(
      s.ch,
      sql`SELECT hostname, actor_user, source_ip, severity, agent_key_id FROM events WHERE event_id = ${envs[5]!.event.event_id}`,
    );
    expect(one[0]).toEqual({
      hostname: 'host-5.example.org',
      actor_user: 'root',
      source_ip: '203.0.113.5',
      severity: 'warning',
      agent_key_id: 42,
    });
    // No header, or one that is not a key id: unknown (0).
    const keys = await queryRows<{ k: number; n: string }>(
      s.ch,
      sql`SELECT agent_key_id AS k, uniqExact(event_id) AS n FROM events GROUP BY k ORDER BY k`,
    );
    expect(keys).toEqual([
      { k: 0, n: '1501' },
      { k: 42, n: '1500' },
    ]);
    const dlq = (await readAll(s.config, s.config.topics.deadLetter, 2)).map((m) => JSON.parse(m.value));
    expect(dlq.map((d) => d.reason).sort()).toEqual([expect.stringMatching(/title/), expect.stringMatching(/not JSON/)].sort());
    expect(await handle.checks!.store_consumer!()).toBe(true);
    const text = await metrics.metrics();
    expect(text).toMatch(/watchpost_consumer_batch_size_count\{consumer="store"\} \d+/);
    expect(text).toMatch(/watchpost_consumer_handle_seconds_bucket\{le="[^"]+",consumer="store"\}/);
    expect(text).toMatch(/watchpost_consumer_lag\{consumer="store",group="[^"]+watchpost-store",partition="0"\}/);
  });

  it('drops daily partitions older than SERVICE_RETENTION_DAYS and keeps the rest', async () => {
    const s = await stores({ SERVICE_RETENTION_DAYS: '30' });
    const now = new Date();
    const old = makeEnvelope({}, 1, new Date(now.getTime() - 40 * 86_400_000));
    const edge = makeEnvelope({}, 2, new Date(now.getTime() - 29 * 86_400_000));
    const fresh = makeEnvelope({}, 3, now);
    await insertEventRows(
      s.ch,
      [old, edge, fresh].map((e) => envelopeToRow(e)),
    );
    const dropped = await dropExpiredPartitions(s.ch, s.config.clickhouseDatabase, 30, now);
    const day = (d: Date) => d.toISOString().slice(0, 10).replaceAll('-', '');
    expect(dropped).toEqual([day(new Date(old.received_at))]);
    const ids = (await queryRows<{ event_id: string }>(s.ch, sql`SELECT event_id FROM events ORDER BY received_at`)).map(
      (r) => r.event_id,
    );
    expect(ids).toEqual([edge.event.event_id, fresh.event.event_id]);
    expect(await dropExpiredPartitions(s.ch, s.config.clickhouseDatabase, 30, now)).toEqual([]);
  });

  it('drops the same expired days from the hourly rollup', async () => {
    const s = await stores({ SERVICE_RETENTION_DAYS: '30' });
    const now = new Date();
    const at = (days: number) => new Date(now.getTime() - days * 86_400_000);
    const envs = [40, 29, 0].map((d, i) => makeEnvelope({ occurred_at: at(d).toISOString() }, i + 1, at(d)));
    await insertEventRows(
      s.ch,
      envs.map((e) => envelopeToRow(e)),
    );
    await runHourlyRollup(s.ch, s.config.clickhouseDatabase);
    const rolled = async () =>
      (
        await queryRows<{ h: string }>(s.ch, sql`SELECT toString(toYYYYMMDD(hour)) AS h FROM events_hourly FINAL ORDER BY hour`)
      ).map((r) => r.h);
    const day = (d: Date) => d.toISOString().slice(0, 10).replaceAll('-', '');
    expect(await rolled()).toEqual([40, 29, 0].map((d) => day(at(d))));
    expect(await dropExpiredEventPartitions(s.ch, s.config.clickhouseDatabase, 30, now)).toEqual({
      events: [day(at(40))],
      hourly: [day(at(40))],
    });
    expect(await rolled()).toEqual([29, 0].map((d) => day(at(d))));
    // The id lookup loses the same day.
    const byId = await queryRows<{ event_id: string }>(s.ch, sql`SELECT event_id FROM events_by_id ORDER BY received_at`);
    expect(byId.map((r) => r.event_id)).toEqual([envs[1]!.event.event_id, envs[2]!.event.event_id]);
    // So do the display names per hour.
    const names = await queryRows<{ h: string }>(
      s.ch,
      sql`SELECT toString(toYYYYMMDD(hour)) AS h FROM events_host_names ORDER BY hour`,
    );
    expect(names.map((r) => r.h)).toEqual([29, 0].map((d) => day(at(d))));
    expect(await dropExpiredEventPartitions(s.ch, s.config.clickhouseDatabase, 30, now)).toEqual({ events: [], hourly: [] });
  });

  it('runs the retention sweep when the role starts', async () => {
    const s = await stores({ SERVICE_RETENTION_DAYS: '7' });
    const old = makeEnvelope({}, 1, new Date(Date.now() - 10 * 86_400_000));
    await insertEventRows(s.ch, [envelopeToRow(old)]);
    await startStore(s);
    await waitFor(
      'old partition dropped',
      async () => Number((await counts(s)).rows),
      (n) => n === 0,
      10_000,
    );
  });
});
