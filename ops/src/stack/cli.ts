// Local stack without Docker: PostgreSQL, Redis, ClickHouse and Kafka as plain background processes
// under one git-ignored state folder, on their own ports. `up | down | status | reset`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync, rmSync, readdirSync, chownSync, openSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { stackSettings, type StackSettings } from './settings.ts';
import { probe } from './probe.ts';
import {
  findPostgresBin,
  kafkaLog4j,
  kafkaNodeProperties,
  kafkaSmallNodeSettings,
  newKafkaClusterId,
  postgresOsUser,
  redisNodeConf,
  sentinelConf,
} from '@watchpost/runtime';
import { clickhouseConfig, clickhouseUsers, redisConf } from './templates.ts';
import { clusterPidFiles, stackClickhouseCluster, upClickhouseCluster } from './clickhouse-cluster.ts';

type Server = 'postgres' | 'redis' | 'clickhouse' | 'kafka';
const SERVERS: Server[] = ['postgres', 'redis', 'clickhouse', 'kafka'];

const s = stackSettings();
const log = (msg: string) => process.stdout.write(`[stack] ${msg}\n`);

function sh(cmd: string, args: string[], opts: { uid?: number; gid?: number; cwd?: string } = {}): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

function which(bin: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function aptInstall(pkgs: string[]): void {
  if (pkgs.length === 0) return;
  log(`installing Debian packages: ${pkgs.join(' ')}`);
  const asRoot = process.getuid?.() === 0;
  const pre = asRoot ? [] : ['sudo'];
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const run = (args: string[]) => {
    const [c, ...rest] = [...pre, ...args];
    const r = spawnSync(c!, rest, { stdio: 'inherit', env });
    if (r.status !== 0) throw new Error(`${args.join(' ')} failed`);
  };
  run(['apt-get', 'update', '-q']);
  run(['apt-get', 'install', '-y', '-q', '--no-install-recommends', ...pkgs]);
}

function ensureInstalled(needed: Server[]): void {
  const pkgs: string[] = [];
  if (needed.includes('postgres') && !findPostgresBin('postgres')) pkgs.push('postgresql');
  if (needed.includes('redis') && !which('redis-server')) pkgs.push('redis-server');
  if (needed.includes('clickhouse') && !which('clickhouse-server')) pkgs.push('clickhouse-server');
  if (needed.includes('kafka') && !which('java')) pkgs.push('openjdk-17-jre-headless');
  if (needed.includes('kafka') && !which('mvn')) pkgs.push('maven');
  aptInstall(pkgs);
  if (needed.includes('kafka')) ensureKafkaJars();
}

function ensureKafkaJars(): void {
  const libs = join(s.dir, 'kafka', 'libs');
  if (existsSync(libs) && readdirSync(libs).some((f) => f.startsWith('kafka_2.13-'))) return;
  log('fetching Kafka jars from Maven Central (cached in ~/.m2)');
  mkdirSync(libs, { recursive: true });
  const pom = join(s.root, 'ops', 'kafka', 'pom.xml');
  const r = spawnSync('mvn', ['-q', '-B', '-f', pom, 'dependency:copy-dependencies', `-DoutputDirectory=${libs}`], {
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error('mvn dependency:copy-dependencies failed');
}

function pidFile(server: Server): string {
  return join(s.dir, server, 'pid');
}

function launch(server: Server, cmd: string, args: string[], opts: { uid?: number; gid?: number } = {}): void {
  launchIn(join(s.dir, server), cmd, args, opts);
}

/** Starts a server detached, its output in <dir>/stdout.log and its pid in <dir>/pid. */
function launchIn(dir: string, cmd: string, args: string[], opts: { uid?: number; gid?: number } = {}): void {
  const out = openSync(join(dir, 'stdout.log'), 'a');
  const child = spawn(cmd, args, { detached: true, stdio: ['ignore', out, out], cwd: dir, ...opts });
  writeFileSync(join(dir, 'pid'), String(child.pid));
  child.unref();
}

// As root, PostgreSQL runs as the `postgres` OS user, which may not be able to reach a state folder
// under a private home (e.g. /root). Then its data lives in a folder of its own, keyed by the state dir.
function postgresHome(user: { uid: number; gid: number } | undefined): string {
  const inState = join(s.dir, 'postgres');
  if (!user) return inState;
  const reachable = spawnSync('test', ['-x', s.dir], { uid: user.uid, gid: user.gid }).status === 0;
  if (reachable) return inState;
  return join('/var/lib/watchpost-stack', createHash('sha256').update(s.dir).digest('hex').slice(0, 12), 'postgres');
}

function startPostgres(): void {
  const user = postgresOsUser();
  const dir = postgresHome(user);
  const data = join(dir, 'data');
  mkdirSync(join(s.dir, 'postgres'), { recursive: true, mode: 0o755 });
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  if (user) chownSync(dir, user.uid, user.gid);
  if (!existsSync(join(data, 'PG_VERSION'))) {
    log('initdb PostgreSQL');
    sh(findPostgresBin('initdb')!, ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8'], user ?? {});
  }
  launch(
    'postgres',
    findPostgresBin('postgres')!,
    [
      '-D',
      data,
      '-p',
      String(s.pgPort),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=300',
      '-c',
      'shared_buffers=256MB',
      '-c',
      'fsync=on',
      '-c',
      'logging_collector=off',
    ],
    user ?? {},
  );
}

function startRedis(): void {
  if (s.redisSentinel) return startRedisSentinel();
  const dir = join(s.dir, 'redis');
  mkdirSync(join(dir, 'data'), { recursive: true });
  writeFileSync(join(dir, 'redis.conf'), redisConf(dir, s.redisPort));
  launch('redis', which('redis-server')!, [join(dir, 'redis.conf')]);
}

// STACK_REDIS_SENTINEL=1: .stack/redis-sentinel/node-1 (first master), node-2 (its replica) and
// sentinel-1..3. Sentinel rewrites these files as the group changes (after a failover node-2 stays the
// master), so each is written only when missing; `reset` starts the group afresh.
function redisSentinelDirs(): string[] {
  const root = join(s.dir, 'redis-sentinel');
  return ['node-1', 'node-2', 'sentinel-1', 'sentinel-2', 'sentinel-3'].map((d) => join(root, d));
}

function startRedisSentinel(): void {
  const [n1, n2, ...sentinels] = redisSentinelDirs();
  const master = { host: '127.0.0.1', port: s.redisSentinelNodePort };
  const nodes = [
    { dir: n1!, port: s.redisSentinelNodePort, replicaOf: undefined },
    { dir: n2!, port: s.redisSentinelNodePort + 1, replicaOf: master },
  ];
  for (const n of nodes) {
    mkdirSync(n.dir, { recursive: true });
    const conf = join(n.dir, 'redis.conf');
    if (!existsSync(conf)) writeFileSync(conf, redisNodeConf({ ...n, persistence: true }));
    if (!pidAlive(join(n.dir, 'pid'))) launchIn(n.dir, which('redis-server')!, [conf]);
  }
  for (const [i, dir] of sentinels.entries()) {
    mkdirSync(dir, { recursive: true });
    const conf = join(dir, 'sentinel.conf');
    if (!existsSync(conf))
      writeFileSync(
        conf,
        sentinelConf({
          dir,
          port: s.redisSentinelPort + i,
          masterName: s.redisSentinelMaster,
          master,
          quorum: 2,
          downAfterMs: 5000,
          failoverTimeoutMs: 60_000,
        }),
      );
    // Debian's redis-sentinel is this same binary started in Sentinel mode.
    if (!pidAlive(join(dir, 'pid'))) launchIn(dir, which('redis-server')!, [conf, '--sentinel']);
  }
}

function pidAlive(pf: string): boolean {
  return existsSync(pf) && isAlive(Number(readFileSync(pf, 'utf8')));
}

function startClickhouse(): void {
  const dir = join(s.dir, 'clickhouse');
  for (const d of ['data', 'tmp', 'user_files', 'format_schemas', 'log']) mkdirSync(join(dir, d), { recursive: true });
  writeFileSync(join(dir, 'config.xml'), clickhouseConfig(dir, s.chHttpPort, s.chTcpPort));
  writeFileSync(join(dir, 'users.xml'), clickhouseUsers(availableParallelism()));
  launch('clickhouse', which('clickhouse-server')!, ['--config-file', join(dir, 'config.xml')]);
}

interface KafkaNode {
  id: number;
  dir: string;
  port: number;
  controllerPort: number;
}

// One broker lives in .stack/kafka (as it always has); a cluster (STACK_KAFKA_BROKERS=3) in
// .stack/kafka-cluster/node-<id>, so switching between the two never mixes their logs. The jars stay in
// .stack/kafka/libs for both (and for the test kit's own clusters).
function kafkaNodes(count: number): KafkaNode[] {
  return Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    dir: count === 1 ? join(s.dir, 'kafka') : join(s.dir, 'kafka-cluster', `node-${i + 1}`),
    port: s.kafkaPort + 2 * i,
    controllerPort: s.kafkaControllerPort + 2 * i,
  }));
}

/** pid files of every Kafka node the stack may have started, whatever STACK_KAFKA_BROKERS says now. */
function kafkaPidFiles(): string[] {
  const files = [pidFile('kafka')];
  const cluster = join(s.dir, 'kafka-cluster');
  if (existsSync(cluster)) for (const d of readdirSync(cluster)) if (d.startsWith('node-')) files.push(join(cluster, d, 'pid'));
  return files;
}

function startKafka(): void {
  const running = kafkaPidFiles().filter((f) => existsSync(f) && isAlive(Number(readFileSync(f, 'utf8'))));
  if (running.length > 0)
    throw new Error(
      `Kafka runs with a different number of brokers than STACK_KAFKA_BROKERS=${s.kafkaBrokers} asks for: \`npm run stack -- down\` first`,
    );
  const nodes = kafkaNodes(s.kafkaBrokers);
  const libs = join(s.dir, 'kafka', 'libs');
  const voters = nodes.map((n) => `${n.id}@127.0.0.1:${n.controllerPort}`).join(',');
  // Every node of a cluster is formatted with the same id, kept beside them.
  const idFile = join(s.dir, 'kafka-cluster', 'cluster-id');
  let clusterId = newKafkaClusterId();
  if (nodes.length > 1) {
    mkdirSync(join(s.dir, 'kafka-cluster'), { recursive: true });
    if (existsSync(idFile)) clusterId = readFileSync(idFile, 'utf8').trim();
    else writeFileSync(idFile, clusterId);
  }
  for (const n of nodes) {
    mkdirSync(join(n.dir, 'data'), { recursive: true });
    const props = join(n.dir, 'server.properties');
    writeFileSync(
      props,
      kafkaNodeProperties({
        nodeId: n.id,
        dataDir: join(n.dir, 'data'),
        port: n.port,
        controllerPort: n.controllerPort,
        voters,
        clusterSize: nodes.length,
        // Several JVMs on one machine: small buffers and threads.
        extra: nodes.length > 1 ? kafkaSmallNodeSettings : {},
      }),
    );
    writeFileSync(join(n.dir, 'log4j.properties'), kafkaLog4j);
    const java = ['-cp', `${libs}/*`, `-Dlog4j.configuration=file:${join(n.dir, 'log4j.properties')}`];
    if (!existsSync(join(n.dir, 'data', 'meta.properties')))
      sh('java', [...java, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', props, '--ignore-formatted']);
    const heap = nodes.length > 1 ? ['-Xms128m', '-Xmx384m'] : ['-Xms256m', '-Xmx512m'];
    launchIn(n.dir, 'java', [...heap, '-XX:+UseG1GC', '-Djava.awt.headless=true', ...java, 'kafka.Kafka', props]);
  }
}

const starters: Record<Server, () => void> = {
  postgres: startPostgres,
  redis: startRedis,
  clickhouse: startClickhouse,
  kafka: startKafka,
};

async function waitUntilUp(server: Server, seconds: number): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (await probe(server, s)) return;
    await new Promise((r) => setTimeout(r, 300));
  }
  const logPath =
    server === 'kafka'
      ? join(kafkaNodes(s.kafkaBrokers)[0]!.dir, 'stdout.log')
      : server === 'redis' && s.redisSentinel
        ? join(redisSentinelDirs()[2]!, 'sentinel.log')
        : join(s.dir, server, 'stdout.log');
  const tail = existsSync(logPath) ? readFileSync(logPath, 'utf8').split('\n').slice(-20).join('\n') : '';
  throw new Error(`${server} did not answer within ${seconds}s; last log lines:\n${tail}`);
}

function managed(): Server[] {
  return SERVERS.filter((x) => !s.external[x]);
}

async function up(): Promise<void> {
  mkdirSync(s.dir, { recursive: true, mode: 0o755 });
  const toStart: Server[] = [];
  for (const server of managed()) if (!(await probe(server, s))) toStart.push(server);
  ensureInstalled(toStart);
  // The Kafka tests start brokers of their own from these jars, also when a broker already answers here.
  if (managed().includes('kafka') && !toStart.includes('kafka')) ensureKafkaJars();
  for (const server of toStart) {
    log(`starting ${server}`);
    starters[server]();
  }
  await Promise.all(toStart.map((x) => waitUntilUp(x, x === 'kafka' ? 90 * s.kafkaBrokers : 60)));
  for (const x of SERVERS) if (s.external[x]) log(`${x}: external (${s.urls[x]}), not managed`);
  for (const x of managed()) log(`${x}: ${toStart.includes(x) ? 'started' : 'already up'}  ${s.urls[x]}`);
  if (managed().includes('redis') && s.redisSentinel) {
    log(`redis: behind Sentinel, master group ${s.redisSentinelMaster}, sentinels ${s.redisSentinels}`);
    log('the service finds it with STACK_REDIS_SENTINEL=1 set, or with:');
    process.stdout.write(
      `export REDIS_URL=${s.urls.redis} REDIS_SENTINELS=${s.redisSentinels} REDIS_SENTINEL_MASTER=${s.redisSentinelMaster}\n`,
    );
  }
  // STACK_CLICKHOUSE_REPLICAS / _SHARDS: a ClickHouse cluster beside the one ClickHouse (clickhouse-cluster.ts).
  const chCluster = stackClickhouseCluster(s.dir);
  if (chCluster) await upClickhouseCluster(chCluster, s.root, availableParallelism(), log);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function down(): Promise<void> {
  for (const server of [...SERVERS].reverse()) {
    // A cluster's nodes stop together: each one alone would wait for the others to take its partitions.
    const files = server === 'kafka' ? kafkaPidFiles() : server === 'redis' ? redisPidFiles() : [pidFile(server)];
    await Promise.all(files.map((pf) => stop(server, pf)));
  }
  // The ClickHouse cluster's servers (whatever STACK_CLICKHOUSE_* say now), then its ZooKeeper.
  const chCluster = clusterPidFiles(join(s.dir, 'clickhouse-cluster'));
  await Promise.all(chCluster.filter((f) => !f.includes('zookeeper')).map((pf) => stop('clickhouse', pf)));
  for (const pf of chCluster.filter((f) => f.includes('zookeeper'))) await stop('clickhouse', pf);
}

/** The one Redis and the Sentinel group's five processes, whatever STACK_REDIS_SENTINEL says now. */
function redisPidFiles(): string[] {
  return [pidFile('redis'), ...redisSentinelDirs().map((d) => join(d, 'pid'))];
}

async function stop(server: Server, pf: string): Promise<void> {
  if (!existsSync(pf)) return;
  const pid = Number(readFileSync(pf, 'utf8'));
  if (pid > 0 && isAlive(pid)) {
    log(`stopping ${server} (pid ${pid})`);
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + 30_000;
    while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  rmSync(pf, { force: true });
}

async function status(): Promise<boolean> {
  let all = true;
  for (const x of SERVERS) {
    const ok = await probe(x, s);
    all &&= ok;
    const sentinels = x === 'redis' && s.redisSentinel && !s.external.redis ? `  (sentinels ${s.redisSentinels})` : '';
    log(`${x.padEnd(10)} ${ok ? 'ok  ' : 'down'}  ${s.urls[x]}${s.external[x] ? '  (external)' : ''}${sentinels}`);
  }
  return all;
}

async function main(cmd: string | undefined, settings: StackSettings): Promise<number> {
  switch (cmd) {
    case 'up':
      await up();
      return 0;
    case 'down':
      await down();
      return 0;
    case 'status':
      return (await status()) ? 0 : 1;
    case 'reset':
      await down();
      rmSync(settings.dir, { recursive: true, force: true });
      rmSync(join('/var/lib/watchpost-stack', createHash('sha256').update(settings.dir).digest('hex').slice(0, 12)), {
        recursive: true,
        force: true,
      });
      log(`removed ${settings.dir}`);
      return 0;
    default:
      process.stderr.write('usage: npm run stack -- up|down|status|reset\n');
      return 2;
  }
}

main(process.argv[2], s).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`[stack] ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
