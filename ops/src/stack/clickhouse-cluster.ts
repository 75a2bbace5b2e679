// A ClickHouse cluster as plain processes (STACK_CLICKHOUSE_REPLICAS / STACK_CLICKHOUSE_SHARDS): one
// ZooKeeper node (jars from Maven Central, ops/zookeeper/pom.xml) and shards x replicas servers of
// Debian's clickhouse-server 18.16, each with the cluster in <remote_servers>, its {shard}/{replica}
// macros, ZooKeeper and ON CLUSTER DDL, small caches and memory limits (several servers on 2 cores).
// Used by the stack's `up` (beside the one ClickHouse, which it leaves alone) and by tests that start a
// cluster of their own on their own ports.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { clickhouseConfig, clickhouseUsers } from './templates.ts';

export interface ClickhouseClusterLayout {
  /** State folder: zookeeper/ and node-<shard>-<replica>/ under it. */
  dir: string;
  /** The cluster's name in <remote_servers> (CLICKHOUSE_CLUSTER). */
  name: string;
  shards: number;
  replicas: number;
  zkPort: number;
  /** Node i (0-based, shard-major) listens on httpPort + i, tcpPort + i and interserverPort + i. */
  httpPort: number;
  tcpPort: number;
  interserverPort: number;
}

export interface ClickhouseClusterNode {
  shard: number;
  replica: number;
  dir: string;
  httpPort: number;
  tcpPort: number;
  interserverPort: number;
  url: string;
}

export function clusterNodes(l: ClickhouseClusterLayout): ClickhouseClusterNode[] {
  const nodes: ClickhouseClusterNode[] = [];
  for (let s = 1; s <= l.shards; s++)
    for (let r = 1; r <= l.replicas; r++) {
      const i = nodes.length;
      nodes.push({
        shard: s,
        replica: r,
        dir: join(l.dir, `node-${s}-${r}`),
        httpPort: l.httpPort + i,
        tcpPort: l.tcpPort + i,
        interserverPort: l.interserverPort + i,
        url: `http://127.0.0.1:${l.httpPort + i}`,
      });
    }
  return nodes;
}

/** The part of a server's config that makes it a member of the cluster. */
export function clusterConfigXml(l: ClickhouseClusterLayout, node: ClickhouseClusterNode): string {
  const nodes = clusterNodes(l);
  const shards = Array.from({ length: l.shards }, (_, i) => {
    const replicas = nodes
      .filter((n) => n.shard === i + 1)
      .map((n) => `<replica><host>127.0.0.1</host><port>${n.tcpPort}</port></replica>`)
      .join('');
    // internal_replication: a Distributed insert writes one replica per shard; replication copies it.
    return `<shard><internal_replication>true</internal_replication>${replicas}</shard>`;
  }).join('\n      ');
  return `  <interserver_http_host>127.0.0.1</interserver_http_host>
  <interserver_http_port>${node.interserverPort}</interserver_http_port>
  <remote_servers>
    <${l.name}>
      ${shards}
    </${l.name}>
  </remote_servers>
  <zookeeper><node><host>127.0.0.1</host><port>${l.zkPort}</port></node><session_timeout_ms>10000</session_timeout_ms></zookeeper>
  <macros><shard>${String(node.shard).padStart(2, '0')}</shard><replica>s${node.shard}r${node.replica}</replica></macros>
  <distributed_ddl><path>/clickhouse/task_queue/ddl</path></distributed_ddl>
`;
}

/** The stack's server config with the cluster part and smaller caches (several servers share the machine). */
export function clusterNodeConfig(l: ClickhouseClusterLayout, node: ClickhouseClusterNode): string {
  return clickhouseConfig(node.dir, node.httpPort, node.tcpPort)
    .replace(/<uncompressed_cache_size>\d+</, '<uncompressed_cache_size>67108864<')
    .replace(/<mark_cache_size>\d+</, '<mark_cache_size>67108864<')
    .replace('</yandex>', `${clusterConfigXml(l, node)}</yandex>`);
}

/**
 * The stack's users with the profile settings a cluster needs: reads whose IN subquery names a
 * Distributed table run it once over all shards (GLOBAL IN; 18.16 refuses them otherwise), and a write
 * into a Distributed table returns only once the shards hold it (the store commits its Kafka offsets
 * after that). Memory: 1.5 GB per query, 3 GB for all queries of a server.
 */
export function clusterNodeUsers(threads: number): string {
  return clickhouseUsers(threads)
    .replace(/<max_memory_usage>\d+</, '<max_memory_usage>1500000000<')
    .replace(/(<max_threads>\d+<\/max_threads>)/, `$1${CLUSTER_PROFILE_XML}`);
}

export const CLUSTER_PROFILE_SETTINGS = {
  distributed_product_mode: 'global',
  insert_distributed_sync: 1,
  max_memory_usage_for_all_queries: 3_000_000_000,
} as const;

const CLUSTER_PROFILE_XML = Object.entries(CLUSTER_PROFILE_SETTINGS)
  .map(([k, v]) => `<${k}>${v}</${k}>`)
  .join('');

export function zooKeeperConfig(dir: string, port: number): string {
  return [
    'tickTime=2000',
    'initLimit=10',
    'syncLimit=5',
    `dataDir=${dir}/data`,
    `clientPort=${port}`,
    'clientPortAddress=127.0.0.1',
    'maxClientCnxns=200',
    'admin.enableServer=false',
    '4lw.commands.whitelist=ruok,stat,mntr',
    'autopurge.purgeInterval=1',
    '',
  ].join('\n');
}

const ZK_LOGBACK = `<configuration>
  <appender name="F" class="ch.qos.logback.core.FileAppender"><file>\${zk.log}</file>
    <encoder><pattern>%d %-5level [%thread] %logger{36} - %msg%n</pattern></encoder></appender>
  <root level="WARN"><appender-ref ref="F"/></root>
</configuration>
`;

/** ZooKeeper's jars from Maven Central into <libs> (cached in ~/.m2), once. */
export function ensureZooKeeperJars(root: string, libs: string, log: (m: string) => void = () => {}): void {
  if (existsSync(libs) && readdirSync(libs).some((f) => /^zookeeper-3\.\d+\.\d+\.jar$/.test(f))) return;
  log('fetching ZooKeeper jars from Maven Central (cached in ~/.m2)');
  mkdirSync(libs, { recursive: true });
  const pom = join(root, 'ops', 'zookeeper', 'pom.xml');
  const r = spawnSync('mvn', ['-q', '-B', '-f', pom, 'dependency:copy-dependencies', `-DoutputDirectory=${libs}`], {
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error('mvn dependency:copy-dependencies (ZooKeeper) failed');
}

function launchDetached(dir: string, cmd: string, args: string[]): number {
  const out = openSync(join(dir, 'stdout.log'), 'a');
  const child = spawn(cmd, args, { detached: true, stdio: ['ignore', out, out], cwd: dir });
  writeFileSync(join(dir, 'pid'), String(child.pid));
  child.unref();
  return child.pid!;
}

export function startZooKeeper(l: ClickhouseClusterLayout, libs: string): number {
  const dir = join(l.dir, 'zookeeper');
  mkdirSync(join(dir, 'data'), { recursive: true });
  writeFileSync(join(dir, 'zoo.cfg'), zooKeeperConfig(dir, l.zkPort));
  writeFileSync(join(dir, 'logback.xml'), ZK_LOGBACK);
  return launchDetached(dir, 'java', [
    '-Xms64m',
    '-Xmx256m',
    `-Dlogback.configurationFile=${join(dir, 'logback.xml')}`,
    `-Dzk.log=${join(dir, 'zookeeper.log')}`,
    '-Dzookeeper.jmx.log4j.disable=true',
    '-cp',
    `${libs}/*`,
    'org.apache.zookeeper.server.ZooKeeperServerMain',
    join(dir, 'zoo.cfg'),
  ]);
}

/** ZooKeeper serves requests (`stat` names its mode). */
function zooKeeperOk(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    sock.setTimeout(1000, () => sock.destroy());
    sock.on('error', () => resolve(false));
    // `stat`, not `ruok`: ruok answers imok while the server is still starting ("ZooKeeperServer not
    // running" to the session a ClickHouse opens then, which 18.16 turns into a crash); stat names the
    // mode only once it serves requests.
    sock.on('connect', () => sock.write('stat'));
    sock.on('data', (d) => (reply += d.toString()));
    sock.on('close', () => resolve(/^Mode: /m.test(reply)));
  });
}

/**
 * Waits for ZooKeeper before any server starts: 18.16 crashes (a null ZooKeeper session in
 * createImpl) when its ON CLUSTER worker ran while ZooKeeper was still starting.
 */
export async function waitZooKeeper(port: number, seconds = 60): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (await zooKeeperOk(port)) return;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`ZooKeeper on 127.0.0.1:${port} did not serve requests (stat) within ${seconds}s`);
}

/** Writes a node's config (every start: ports and members may have changed) and starts it; its pid. */
export function startClusterNode(l: ClickhouseClusterLayout, node: ClickhouseClusterNode, threads: number): number {
  for (const d of ['data', 'tmp', 'user_files', 'format_schemas', 'log']) mkdirSync(join(node.dir, d), { recursive: true });
  writeFileSync(join(node.dir, 'config.xml'), clusterNodeConfig(l, node));
  writeFileSync(join(node.dir, 'users.xml'), clusterNodeUsers(threads));
  return launchDetached(node.dir, 'clickhouse-server', ['--config-file', join(node.dir, 'config.xml')]);
}

/** pid files of the cluster's processes under dir (ZooKeeper last: the servers leave it cleanly first). */
export function clusterPidFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const nodes = readdirSync(dir)
    .filter((d) => d.startsWith('node-'))
    .map((d) => join(dir, d, 'pid'));
  return [...nodes, join(dir, 'zookeeper', 'pid')].filter((f) => existsSync(f));
}

export function pidAliveIn(pidFile: string): boolean {
  if (!existsSync(pidFile)) return false;
  try {
    process.kill(Number(readFileSync(pidFile, 'utf8')), 0);
    return true;
  } catch {
    return false;
  }
}

/** Every node answers a query that reads ZooKeeper, and knows the cluster with all its members. */
export async function clusterUp(l: ClickhouseClusterLayout): Promise<boolean> {
  const nodes = clusterNodes(l);
  const q = encodeURIComponent(
    `SELECT count() FROM system.clusters WHERE cluster = '${l.name}' AND (SELECT count() FROM system.zookeeper WHERE path = '/') >= 0`,
  );
  const answers = await Promise.all(
    nodes.map(async (n) => {
      try {
        const r = await fetch(`${n.url}/?query=${q}`, { signal: AbortSignal.timeout(2000) });
        return r.ok ? Number((await r.text()).trim()) : -1;
      } catch {
        return -1;
      }
    }),
  );
  return answers.every((a) => a === nodes.length);
}

export async function waitClusterUp(l: ClickhouseClusterLayout, seconds = 90): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (await clusterUp(l)) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  const tails = clusterNodes(l)
    .map((n) => join(n.dir, 'log', 'error.log'))
    .filter((f) => existsSync(f))
    .map((f) => `${f}:\n${readFileSync(f, 'utf8').split('\n').slice(-8).join('\n')}`);
  throw new Error(`ClickHouse cluster ${l.name} did not answer within ${seconds}s\n${tails.join('\n')}`);
}

export function removeClusterState(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * STACK_CLICKHOUSE_REPLICAS (replicas per shard) and STACK_CLICKHOUSE_SHARDS: the stack's cluster
 * `watchpost` beside the one ClickHouse (which keeps its ports), in <state>/clickhouse-cluster/, node i
 * on HTTP 18131 + i, native 19011 + i, interserver 19031 + i, ZooKeeper on 12181
 * (STACK_CLICKHOUSE_CLUSTER_HTTP_PORT, _TCP_PORT, _INTERSERVER_PORT, STACK_ZOOKEEPER_PORT). Neither set: none.
 */
export function stackClickhouseCluster(
  stateDir: string,
  env: NodeJS.ProcessEnv = process.env,
): ClickhouseClusterLayout | undefined {
  if (!env.STACK_CLICKHOUSE_REPLICAS && !env.STACK_CLICKHOUSE_SHARDS) return undefined;
  const count = (name: string) => {
    const n = Number(env[name] ?? 1);
    if (!Number.isInteger(n) || n < 1 || n > 4) throw new Error(`${name}: 1 to 4, got "${env[name]}"`);
    return n;
  };
  const layout = {
    dir: join(stateDir, 'clickhouse-cluster'),
    name: 'watchpost',
    shards: count('STACK_CLICKHOUSE_SHARDS'),
    replicas: count('STACK_CLICKHOUSE_REPLICAS'),
    zkPort: Number(env.STACK_ZOOKEEPER_PORT ?? 12181),
    httpPort: Number(env.STACK_CLICKHOUSE_CLUSTER_HTTP_PORT ?? 18131),
    tcpPort: Number(env.STACK_CLICKHOUSE_CLUSTER_TCP_PORT ?? 19011),
    interserverPort: Number(env.STACK_CLICKHOUSE_CLUSTER_INTERSERVER_PORT ?? 19031),
  };
  if (layout.shards * layout.replicas < 2)
    throw new Error('STACK_CLICKHOUSE_REPLICAS x STACK_CLICKHOUSE_SHARDS: 2 servers or more');
  return layout;
}

/** `up` for the cluster: starts what is not running (ZooKeeper first), waits, prints what to export. */
export async function upClickhouseCluster(
  l: ClickhouseClusterLayout,
  root: string,
  threads: number,
  log: (m: string) => void,
): Promise<void> {
  const libs = join(l.dir, 'zookeeper', 'libs');
  ensureZooKeeperJars(root, libs, log);
  const running = clusterPidFiles(l.dir).filter(pidAliveIn);
  const expected = clusterNodes(l).map((n) => join(n.dir, 'pid'));
  if (running.some((f) => f.includes('node-') && !expected.includes(f)))
    throw new Error(
      'the ClickHouse cluster runs with another shape than STACK_CLICKHOUSE_SHARDS/_REPLICAS ask for: `down` first',
    );
  checkClusterShape(l);
  if (!pidAliveIn(join(l.dir, 'zookeeper', 'pid'))) {
    log(`starting zookeeper on 127.0.0.1:${l.zkPort}`);
    startZooKeeper(l, libs);
  }
  await waitZooKeeper(l.zkPort);
  for (const n of clusterNodes(l))
    if (!pidAliveIn(join(n.dir, 'pid'))) {
      log(`starting clickhouse shard ${n.shard} replica ${n.replica} on ${n.url}`);
      startClusterNode(l, n, threads);
    }
  await waitClusterUp(l);
  log(
    `clickhouse cluster ${l.name}: ${l.shards} shard(s) x ${l.replicas} replica(s) up; with these STACK_CLICKHOUSE_* set and ` +
      'no CLICKHOUSE_URL, `npm run migrate` and the service use it (runtime/src/config/local-stack.ts); elsewhere:',
  );
  process.stdout.write(`export CLICKHOUSE_URL=${clusterNodes(l)[0]!.url} CLICKHOUSE_CLUSTER=${l.name}\n`);
}

/**
 * A cluster of a test's own in a new temporary folder: ZooKeeper, then every server (one thread each), up.
 * `stop()` kills every process -9 (nothing of it is kept) and removes the folder unless KEEP_CH_DIR is set.
 */
export async function startTestCluster(
  root: string,
  shape: Omit<ClickhouseClusterLayout, 'dir'>,
): Promise<{ layout: ClickhouseClusterLayout; nodes: ClickhouseClusterNode[]; stop(): Promise<void> }> {
  const layout = { ...shape, dir: mkdtempSync(join(tmpdir(), `wp-${shape.name}-`)) };
  const libs = join(root, '.stack', 'zookeeper-libs');
  ensureZooKeeperJars(root, libs);
  startZooKeeper(layout, libs);
  await waitZooKeeper(layout.zkPort);
  for (const n of clusterNodes(layout)) startClusterNode(layout, n, 1);
  await waitClusterUp(layout, 90);
  return {
    layout,
    nodes: clusterNodes(layout),
    async stop() {
      for (const pf of clusterPidFiles(layout.dir))
        try {
          process.kill(Number(readFileSync(pf, 'utf8')), 'SIGKILL');
        } catch {
          /* already gone */
        }
      await new Promise((r) => setTimeout(r, 500));
      if (!process.env.KEEP_CH_DIR) removeClusterState(layout.dir);
    },
  };
}

/**
 * The shape the cluster's state was made with, read from its servers' folders (node-<shard>-<replica>):
 * another shape on the same state would leave a new shard without tables (the migration log, replicated
 * to every server, says they exist) and ZooKeeper with a replica that never comes back. Refused, with
 * what to do. No state yet: any shape.
 */
export function checkClusterShape(l: ClickhouseClusterLayout): void {
  if (!existsSync(l.dir)) return;
  const have = readdirSync(l.dir)
    .filter((d) => /^node-\d+-\d+$/.test(d))
    .sort();
  if (have.length === 0) return;
  const want = clusterNodes(l)
    .map((n) => `node-${n.shard}-${n.replica}`)
    .sort();
  if (have.join() === want.join()) return;
  const shards = new Set(have.map((d) => d.split('-')[1])).size;
  const was = `${shards} shard(s) x ${have.length / shards} replica(s)`;
  throw new Error(
    `the ClickHouse cluster's state in ${l.dir} is ${was}, and STACK_CLICKHOUSE_SHARDS/_REPLICAS ask for ` +
      `${l.shards} shard(s) x ${l.replicas} replica(s): set them as before, or \`npm run stack -- down\` and remove that folder (its events go with it)`,
  );
}
