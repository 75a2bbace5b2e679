// There is no Docker engine here: the compose file is kept valid by parsing and checking it.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from '@watchpost/runtime';
import { ROLES } from '@watchpost/runtime';
import { CLUSTER_PROFILE_SETTINGS } from './stack/clickhouse-cluster.ts';

type Service = {
  image?: string;
  build?: { dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  networks?: Record<string, { ipv4_address?: string }>;
};
const compose = parse(readFileSync(join(repoRoot, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  networks: { default: { ipam: { config: { subnet: string }[] } } };
};

describe('docker-compose.yml', () => {
  it('runs the four servers on current images', () => {
    const s = compose.services;
    expect(s.kafka!.image).toMatch(/^apache\/kafka:3\.9\./);
    expect(s.kafka!.environment!.KAFKA_PROCESS_ROLES).toBe('broker,controller');
    expect(s.clickhouse!.image).toMatch(/^clickhouse\/clickhouse-server:\d{2}\.\d+/);
    expect(s.postgres!.image).toMatch(/^postgres:\d+/);
    expect(s.redis!.image).toMatch(/^redis:7/);
    expect(s.redis!.command).toEqual(expect.arrayContaining(['--appendonly', 'yes', '--maxmemory-policy', 'noeviction']));
  });

  it('builds every service role from the one Dockerfile with a known role', () => {
    const roles = Object.entries(compose.services).filter(([, s]) => s.build);
    expect(roles.length).toBeGreaterThanOrEqual(4);
    for (const [name, s] of roles) {
      expect(s.build!.dockerfile, name).toBe('ops/Dockerfile');
      const [node, script, role] = s.command!;
      expect(node).toBe('node');
      expect(existsSync(join(repoRoot, script!)), `${name}: ${script}`).toBe(true);
      if (script === 'ops/src/start.ts') expect(ROLES).toContain(role);
    }
    expect(existsSync(join(repoRoot, 'ops/Dockerfile'))).toBe(true);
  });

  it('the image creates its state folder for the service user and declares it a volume; compose mounts it there', () => {
    const lines = readFileSync(join(repoRoot, 'ops/Dockerfile'), 'utf8').split('\n');
    const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
    const dir = /^ENV SERVICE_STATE_DIR=(\S+)$/.exec(lines[at(/^ENV SERVICE_STATE_DIR=/)] ?? '')?.[1];
    expect(dir).toBe('/var/lib/watchpost');
    const run = lines[at(/^RUN mkdir -p \/var\/lib\/watchpost /)] ?? '';
    expect(run).toContain('chown node:node /var/lib/watchpost');
    // Created and owned before the switch to the unprivileged user, declared a volume after the chown
    // (a VOLUME line freezes the folder's content and ownership).
    expect(at(/^RUN mkdir -p \/var\/lib\/watchpost /)).toBeLessThan(at(/^VOLUME \["\/var\/lib\/watchpost"\]$/));
    expect(at(/^VOLUME /)).toBeLessThan(at(/^USER node$/));
    const roles = Object.values(compose.services).filter((s) => s.build && s.command?.[1] === 'ops/src/start.ts');
    for (const s of roles) expect(s.environment?.SERVICE_STATE_DIR).toBe(dir);
  });

  it('publishes one HTTPS address through Caddy and no HTTP role port; the roles trust only the proxy', () => {
    const s = compose.services;
    const published = Object.entries(s).filter(([, v]) => v.ports?.length);
    // SMTP cannot go through an HTTP proxy: the smtp role (its own profile) is the one other published port.
    expect(published.map(([name]) => name)).toEqual(['caddy', 'smtp']);
    expect(s.caddy!.ports!.map((p) => p.split(':')[0])).toEqual(['443', '443', '80']);
    expect(s.caddy!.image).toMatch(/^caddy:2\.\d+/);
    // The same Caddyfile ops/src/caddy.int.test.ts runs, mounted where the command reads it.
    expect(s.caddy!.volumes).toContain('./ops/caddy:/etc/caddy:ro');
    expect(s.caddy!.command).toEqual(['caddy', 'run', '--config', '/etc/caddy/Caddyfile', '--adapter', 'caddyfile']);
    expect(existsSync(join(repoRoot, 'ops/caddy/Caddyfile'))).toBe(true);
    expect(s.caddy!.environment).toMatchObject({ INGEST_UPSTREAM: 'ingest:8080', API_UPSTREAM: 'api:8080' });
    // The upstreams are the roles' names and the port they listen on.
    for (const role of ['ingest', 'api']) expect(s[role]!.environment!.PORT).toBe('8080');
    const proxy = s.caddy!.networks!.default!.ipv4_address!;
    const subnet = compose.networks.default.ipam.config[0]!.subnet;
    expect(proxy.split('.').slice(0, 3)).toEqual(subnet.split('.').slice(0, 3));
    for (const [name, v] of Object.entries(s).filter(([, v]) => v.command?.[1] === 'ops/src/start.ts')) {
      expect(v.environment!.SERVICE_TRUST_PROXY, name).toBe(proxy);
      expect(v.environment!.SERVICE_PUBLIC_URL, name).toBe('https://${SITE_ADDRESS:-localhost}');
    }
  });

  it('runs the SMTP intake on request, on 587, with STARTTLS from the provided pair', () => {
    const smtp = compose.services.smtp as Service & { profiles?: string[] };
    expect(smtp.profiles).toEqual(['smtp']);
    expect(smtp.command).toEqual(['node', 'ops/src/start.ts', 'smtp']);
    expect(smtp.ports).toEqual(['${SMTP_INTAKE_PORT:-587}:2525']);
    expect(smtp.environment).toMatchObject({
      SERVICE_SMTP_PORT: '2525',
      DATABASE_URL: compose.services.ingest!.environment!.DATABASE_URL,
      KAFKA_BROKERS: 'kafka:9092',
    });
    // The files it names are in the folder it mounts (the one TLS_MODE=files reads), read-only.
    expect(smtp.volumes).toContain('./ops/caddy/certs:/etc/watchpost/certs:ro');
    expect(smtp.environment!.SERVICE_SMTP_TLS_CERT_FILE).toMatch(/:-\/etc\/watchpost\/certs\/cert\.pem\}$/);
    expect(smtp.environment!.SERVICE_SMTP_TLS_KEY_FILE).toMatch(/:-\/etc\/watchpost\/certs\/key\.pem\}$/);
    // Never AUTH (an agent key) in the clear from the internet.
    expect(smtp.environment!.SERVICE_SMTP_ALLOW_INSECURE_AUTH).toBeUndefined();
  });

  it('runs ClickHouse as one shard of two replicas with Keeper on request, as CLICKHOUSE_CLUSTER expects', () => {
    const s = compose.services as Record<string, Service & { profiles?: string[]; hostname?: string }>;
    const cluster = ['keeper', 'clickhouse-1', 'clickhouse-2'];
    for (const name of cluster) expect(s[name]!.profiles, name).toEqual(['clickhouse-cluster']);
    expect(s.keeper!.image).toMatch(/^clickhouse\/clickhouse-keeper:\d{2}\.\d+/);
    expect(s['clickhouse-1']!.image).toBe(s.clickhouse!.image); // the replicas run the one server's release
    const file = (volume: string) => readFileSync(join(repoRoot, volume.split(':')[0]!), 'utf8');
    const mounted = (name: string, target: RegExp) => {
      const v = s[name]!.volumes!.find((x) => target.test(x.split(':')[1]!));
      expect(v, `${name} mounts ${target}`).toBeDefined();
      return file(v!);
    };
    const tag = (xml: string, t: string) => [...xml.matchAll(new RegExp(`<${t}>([^<]*)</${t}>`, 'g'))].map((m) => m[1]);
    // The keeper listens where the servers look for it
    const keeper = mounted('keeper', /keeper_config\.xml$/);
    const servers = ['clickhouse-1', 'clickhouse-2'];
    for (const name of servers) {
      const conf = mounted(name, /config\.d\/cluster\.xml$/);
      expect(tag(conf, 'host')).toEqual([...servers, 'keeper']); // the two replicas, then Keeper
      expect(tag(conf, 'port').at(-1)).toBe(tag(keeper, 'tcp_port')[0]);
      // the cluster the service names (README, Production) with internal replication
      expect(conf).toMatch(/<watchpost>\s*(<!--[^>]*-->\s*)?<shard>\s*<internal_replication>true<\/internal_replication>/);
      // one shard, a replica name of its own, and the host name the other replica fetches parts from
      const macros = mounted(name, /config\.d\/macros\.xml$/);
      expect(tag(macros, 'shard')).toEqual(['01']);
      expect(tag(macros, 'replica')).toEqual([name]);
      expect(tag(macros, 'interserver_http_host')).toEqual([name]);
      expect(s[name]!.hostname).toBe(name);
      // the profile settings of the local stack's cluster (ops/src/stack/clickhouse-cluster.ts)
      const profile = mounted(name, /users\.d\/profile\.xml$/);
      expect(tag(profile, 'distributed_product_mode')).toEqual([String(CLUSTER_PROFILE_SETTINGS.distributed_product_mode)]);
      expect(tag(profile, 'insert_distributed_sync')).toEqual([String(CLUSTER_PROFILE_SETTINGS.insert_distributed_sync)]);
    }
    // The roles and the migration take the cluster from the environment; without it, the one server
    for (const name of ['ingest', 'api', 'store', 'migrate']) {
      expect(s[name]!.environment!.CLICKHOUSE_URL, name).toBe('${CLICKHOUSE_URL:-http://clickhouse:8123}');
      expect(s[name]!.environment!.CLICKHOUSE_CLUSTER, name).toBe('${CLICKHOUSE_CLUSTER:-}');
    }
  });

  it('keeps a provided key pair out of git and out of the image', () => {
    expect(readFileSync(join(repoRoot, 'ops/caddy/certs/.gitignore'), 'utf8')).toMatch(/^\*$/m);
    expect(readFileSync(join(repoRoot, '.dockerignore'), 'utf8').split('\n')).toContain('ops/caddy/certs');
  });
});
