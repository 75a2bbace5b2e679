import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clickhouseMigrations, clickhouseMigrationsDir } from './clickhouse.ts';
import { CLUSTER_SHARDING, clusterMigrationsTable, clusterStatements } from './clickhouse-cluster.ts';

const target = { cluster: 'wp', database: 'watchpost' };
const files = readdirSync(clickhouseMigrationsDir).filter((f) => f.endsWith('.sql'));

describe('ClickHouse migrations in cluster form', () => {
  it('leaves the single-server statements as the files hold them', () => {
    for (const m of clickhouseMigrations()) {
      const text = readFileSync(join(clickhouseMigrationsDir, m.name), 'utf8');
      for (const st of m.statements) expect(text).toContain(st.split('\n').at(-1));
    }
    expect(clickhouseMigrations().map((m) => m.name)).toEqual(files.sort());
  });

  it('renders every statement of every migration file, DDL qualified and ON CLUSTER', () => {
    const single = clickhouseMigrations();
    const cluster = clickhouseMigrations(target);
    expect(cluster.map((m) => m.name)).toEqual(single.map((m) => m.name));
    for (const m of cluster) {
      expect(m.statements.length, m.name).toBeGreaterThan(0);
      for (const st of m.statements) {
        if (st.startsWith('INSERT')) continue;
        expect(st, m.name).toMatch(
          /^(CREATE TABLE IF NOT EXISTS|CREATE MATERIALIZED VIEW IF NOT EXISTS|ALTER TABLE|DROP TABLE IF EXISTS) watchpost\.\w+ ON CLUSTER wp\b/,
        );
        // No table named without its database (ON CLUSTER runs in each server's default database).
        expect(st.match(/\b(?:FROM|TO|AS)\s+(events\w*)\b/g) ?? [], m.name).toEqual([]);
      }
    }
  });

  it('puts every table behind a Distributed table over replicated local tables', () => {
    const ddl = clickhouseMigrations(target).flatMap((m) => m.statements);
    const created = ddl.flatMap((st) => [...st.matchAll(/^CREATE TABLE IF NOT EXISTS watchpost\.(\w+) /g)].map((x) => x[1]!));
    const locals = created.filter((t) => t.endsWith('_local'));
    expect(locals.map((t) => t.replace(/_local$/, '')).sort()).toEqual(Object.keys(CLUSTER_SHARDING).sort());
    for (const local of locals) {
      const table = local.replace(/_local$/, '');
      const create = ddl.find((st) => st.startsWith(`CREATE TABLE IF NOT EXISTS watchpost.${local} `))!;
      expect(create).toMatch(
        new RegExp(`ENGINE = Replicated\\w*MergeTree\\('/clickhouse/tables/\\{shard\\}/watchpost\\.${local}', '\\{replica\\}'`),
      );
      const dist = ddl.findLast((st) => st.startsWith(`CREATE TABLE IF NOT EXISTS watchpost.${table} `))!;
      expect(dist).toContain(`\nENGINE = Distributed(wp, watchpost, ${local}, ${CLUSTER_SHARDING[table]})`);
    }
  });

  it('keeps the engine arguments after the replication path (the version column)', () => {
    const [local] = clusterStatements(
      'CREATE TABLE IF NOT EXISTS events_hourly (hour DateTime, version UInt64) ENGINE = ReplacingMergeTree(version)\nORDER BY hour',
      target,
    );
    expect(local).toBe(
      "CREATE TABLE IF NOT EXISTS watchpost.events_hourly_local ON CLUSTER wp (hour DateTime, version UInt64) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/watchpost.events_hourly_local', '{replica}', version)\nORDER BY hour",
    );
  });

  it('shards events by hostname, so every copy of an event lands on one shard', () => {
    expect(CLUSTER_SHARDING.events).toBe('sipHash64(hostname)');
    for (const t of ['events_by_id', 'events_hourly', 'events_host_names'])
      expect(CLUSTER_SHARDING[t]).toBe(CLUSTER_SHARDING.events);
  });

  it('puts materialized views on the local tables, writing local tables', () => {
    const [view] = clusterStatements(
      'CREATE MATERIALIZED VIEW IF NOT EXISTS events_by_id_mv TO events_by_id AS\nSELECT event_id, occurred_at, received_at, hostname FROM events',
      target,
    );
    expect(view).toBe(
      'CREATE MATERIALIZED VIEW IF NOT EXISTS watchpost.events_by_id_mv ON CLUSTER wp TO watchpost.events_by_id_local AS\nSELECT event_id, occurred_at, received_at, hostname FROM watchpost.events_local',
    );
  });

  it('alters the local table and makes the Distributed one again with the column in its place', () => {
    const schema = new Map();
    clusterStatements(
      'CREATE TABLE IF NOT EXISTS events (event_id String, source_ip String, tags Array(String)) ENGINE = ReplacingMergeTree(received_at)\nORDER BY event_id',
      target,
      schema,
    );
    expect(
      clusterStatements('ALTER TABLE events ADD COLUMN agent_key_id UInt32 DEFAULT 0 AFTER source_ip', target, schema),
    ).toEqual([
      'ALTER TABLE watchpost.events_local ON CLUSTER wp ADD COLUMN agent_key_id UInt32 DEFAULT 0 AFTER source_ip',
      'DROP TABLE IF EXISTS watchpost.events ON CLUSTER wp',
      'CREATE TABLE IF NOT EXISTS watchpost.events ON CLUSTER wp (\n  event_id String,\n  source_ip String,\n  agent_key_id UInt32 DEFAULT 0,\n  tags Array(String)\n)\nENGINE = Distributed(wp, watchpost, events_local, sipHash64(hostname))',
    ]);
    // A MATERIALIZED column is an ALIAS on the Distributed table (18.16 would send it on an insert).
    const [, , dist] = clusterStatements(
      'ALTER TABLE events ADD COLUMN search_text String MATERIALIZED lowerUTF8(title)',
      target,
      schema,
    );
    expect(dist).toContain('  search_text String ALIAS lowerUTF8(title)\n)');
    expect(() => clusterStatements('ALTER TABLE nothing ADD COLUMN a UInt8', target, new Map())).toThrow(
      /no sharding key|before it is created/,
    );
  });

  it('refuses a statement of a shape it does not know, a table without a sharding key and odd names', () => {
    expect(() => clusterStatements('ALTER TABLE events DROP COLUMN title', target)).toThrow(/no cluster form/);
    expect(() => clusterStatements('CREATE TABLE IF NOT EXISTS other (a UInt8) ENGINE = MergeTree ORDER BY a', target)).toThrow(
      /no sharding key for ClickHouse table "other"/,
    );
    expect(() => clusterStatements('ALTER TABLE events ADD COLUMN a UInt8', { cluster: 'a-b', database: 'x' })).toThrow(
      /CLICKHOUSE_CLUSTER/,
    );
    expect(() => clusterStatements('ALTER TABLE events ADD COLUMN a UInt8', { cluster: 'a', database: 'x;y' })).toThrow(
      /CLICKHOUSE_DATABASE/,
    );
  });

  it('keeps the migration log in full on every server', () => {
    expect(clusterMigrationsTable(target)).toBe(
      "CREATE TABLE IF NOT EXISTS watchpost.schema_migrations ON CLUSTER wp (name String, applied_at DateTime) ENGINE = ReplicatedMergeTree('/clickhouse/tables/all/watchpost.schema_migrations', '{shard}-{replica}') ORDER BY name",
    );
  });

  it('renders the whole set as reviewed', () => {
    const text = clickhouseMigrations(target)
      .map((m) => `-- ${m.name}\n${m.statements.join(';\n\n')};\n`)
      .join('\n');
    expect(text).toMatchSnapshot();
  });
});
