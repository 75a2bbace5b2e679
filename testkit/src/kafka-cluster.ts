// A KRaft Kafka cluster of a test's own (every node broker and controller, the jars `npm run stack -- up`
// fetched into .stack/kafka/libs, the stack's property template), for faults a test must not apply to
// the shared stack's broker: kill -9 of a node and a restart on the same log dir, or a node cut off from
// everyone. Every connection INTO a node goes through a TCP proxy of the test kit: clients and replica
// fetchers through the node's client proxy (its advertised listener), and the controllers reach one
// another through one proxy per (from, to) pair, so that `isolate` cuts a node from the clients, the
// replicas and the quorum, while the others still reach each other.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { kafkaLog4j, kafkaNodeProperties, kafkaSmallNodeSettings, newKafkaClusterId, repoRoot } from '@watchpost/runtime';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';
import { freePort } from './ports.ts';
import { endProcess, isRunning } from './own-server.ts';

export interface KafkaClusterNode {
  id: number;
  /** The address clients use (the node's client proxy). */
  address: string;
  pid(): number | undefined;
}

export interface OwnKafkaCluster {
  /** Every node's client address, comma-separated (KAFKA_BROKERS). */
  brokers: string;
  nodes: KafkaClusterNode[];
  /** SIGKILL to one node's JVM; resolves once it is gone. */
  kill9(id: number): Promise<void>;
  /** Starts a killed node again on the same log dir and ports; resolves once the cluster lists it again. */
  restart(id: number): Promise<void>;
  /** Cuts every connection into the node and its controller's to the others (the JVM keeps running). */
  isolate(id: number): void;
  /** Undoes `isolate`. */
  reconnect(id: number): void;
  /** The leader of a partition as the reachable nodes see it (-1: none). */
  leaderOf(topic: string, partition: number): Promise<number>;
  /** The active controller as the reachable nodes last logged it (undefined before any did). */
  activeController(): number | undefined;
  /** The node ids the cluster has registered and unfenced (as the reachable nodes see them). */
  liveNodes(): Promise<number[]>;
  /** The last lines a node's JVM printed (for failure messages). */
  output(id: number): string;
  /** Stops every node and removes the log dirs. */
  stop(): Promise<void>;
}

export interface KafkaClusterOptions {
  nodes?: number;
  /** Max heap per JVM; the default keeps three nodes within a small CI machine. */
  heapMb?: number;
  /** Extra broker settings (added to the test defaults below). */
  extra?: Record<string, string | number>;
}

export function kafkaLibs(): string {
  const libs = join(repoRoot, '.stack', 'kafka', 'libs');
  if (!existsSync(libs) || !readdirSync(libs).some((f) => f.startsWith('kafka_2.13-')))
    throw new Error(`no Kafka jars in ${libs}: run \`npm run stack -- up\` once (it fetches them)`);
  return libs;
}

function admin(brokers: string[]) {
  return new Kafka({
    clientId: 'test-cluster',
    brokers,
    connectionTimeout: 1000,
    requestTimeout: 5000,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  }).admin();
}

export async function startKafkaCluster(opts: KafkaClusterOptions = {}): Promise<OwnKafkaCluster> {
  const n = opts.nodes ?? 3;
  const heap = opts.heapMb ?? 384;
  const libs = kafkaLibs();
  const dir = await mkdtemp(join(tmpdir(), 'watchpost-kafka-'));
  const ids = Array.from({ length: n }, (_, i) => i + 1);
  const brokerPort = new Map<number, number>();
  const controllerPort = new Map<number, number>();
  for (const id of ids) {
    brokerPort.set(id, await freePort());
    controllerPort.set(id, await freePort());
  }
  const clientProxy = new Map<number, TcpProxy>();
  for (const id of ids) clientProxy.set(id, await startTcpProxy('127.0.0.1', brokerPort.get(id)!));
  // controllerProxy.get(`${from}>${to}`): how node `from` reaches node `to`'s controller.
  const controllerProxy = new Map<string, TcpProxy>();
  for (const from of ids)
    for (const to of ids)
      if (from !== to) controllerProxy.set(`${from}>${to}`, await startTcpProxy('127.0.0.1', controllerPort.get(to)!));

  const clusterId = newKafkaClusterId();
  const java = (id: number) => [
    '-cp',
    `${libs}/*`,
    `-Dlog4j.configuration=file:${join(dir, 'log4j.properties')}`,
    `-Dkafka.logs.dir=${join(dir, `node-${id}`)}`,
  ];
  writeFileSync(join(dir, 'log4j.properties'), kafkaLog4j);
  const propsFile = (id: number) => join(dir, `node-${id}`, 'server.properties');
  for (const id of ids) {
    mkdirSync(join(dir, `node-${id}`, 'data'), { recursive: true });
    const voters = ids
      .map((to) => `${to}@127.0.0.1:${to === id ? controllerPort.get(to) : controllerProxy.get(`${id}>${to}`)!.port}`)
      .join(',');
    writeFileSync(
      propsFile(id),
      kafkaNodeProperties({
        nodeId: id,
        dataDir: join(dir, `node-${id}`, 'data'),
        port: brokerPort.get(id)!,
        advertisedPort: clientProxy.get(id)!.port,
        controllerPort: controllerPort.get(id)!,
        voters,
        clusterSize: n,
        extra: { ...kafkaSmallNodeSettings, ...opts.extra },
      }),
    );
  }
  await Promise.all(
    ids.map(async (id) => {
      // Formatted once: the failure once taken for JVMs starting side by side was a cluster id starting
      // with '-' (newKafkaClusterId), which no retry with the same id could mend.
      const args = ['kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', propsFile(id), '--ignore-formatted'];
      const c = spawn('java', [...java(id), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      c.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      c.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      const [code] = (await once(c, 'exit')) as [number | null];
      if (code !== 0) throw new Error(`kafka storage format of node ${id} failed (${code}): ${out}`);
    }),
  );

  const children = new Map<number, ChildProcess>();
  const output = new Map<number, string>();
  // The active controller as each node's broker last logged it (KRaft clients are never told).
  const controllerSeen = new Map<number, number>();
  const addresses = ids.map((id) => `127.0.0.1:${clientProxy.get(id)!.port}`);
  const running = (id: number) => isRunning(children.get(id));

  function launch(id: number): void {
    const c = spawn(
      'java',
      [
        `-Xms${Math.min(128, heap)}m`,
        `-Xmx${heap}m`,
        '-XX:+UseSerialGC',
        '-Djava.awt.headless=true',
        ...java(id),
        'kafka.Kafka',
        propsFile(id),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const keep = (d: Buffer) => {
      const text = d.toString();
      output.set(id, ((output.get(id) ?? '') + text).slice(-6000));
      for (const m of text.matchAll(/Recorded new KRaft controller, from now on will use node \S+ \(id: (\d+)/g))
        controllerSeen.set(id, Number(m[1]));
    };
    c.stdout!.on('data', keep);
    c.stderr!.on('data', keep);
    children.set(id, c);
  }

  const clientProxyUp = new Map(ids.map((id) => [id, true]));
  const reachable = () => ids.filter((id) => running(id) && clientProxyUp.get(id)).map((id) => addresses[id - 1]!);

  async function liveNodes(via = reachable()): Promise<number[]> {
    if (via.length === 0) return [];
    const a = admin(via);
    try {
      await a.connect();
      const c = await a.describeCluster();
      return c.brokers.map((b) => b.nodeId).sort((x, y) => x - y);
    } catch {
      return [];
    } finally {
      await a.disconnect().catch(() => {});
    }
  }

  async function waitForNodes(want: number[], what: string, timeoutMs = 180_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last: number[] = [];
    for (;;) {
      for (const id of want) if (!running(id)) throw new Error(`kafka node ${id} exited while ${what}: ${output.get(id) ?? ''}`);
      // Each node asked itself: a killed node stays listed by the others until its session times out.
      const seen = await Promise.all(want.map(async (id) => (await liveNodes([addresses[id - 1]!])).includes(id)));
      last = await liveNodes();
      if (seen.every(Boolean) && want.every((id) => last.includes(id))) return;
      if (Date.now() > deadline)
        throw new Error(
          `kafka cluster: ${what} took over ${timeoutMs} ms (live: ${last.join(',')}); ${[...output.values()].join('\n').slice(-3000)}`,
        );
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  const kill = (id: number, signal: NodeJS.Signals) => endProcess(children.get(id), signal);

  // A test process that ends without stop() (a crash, a timeout) must not leave JVMs behind.
  const killAll = () => {
    for (const id of ids) if (running(id)) children.get(id)!.kill('SIGKILL');
  };
  process.once('exit', killAll);
  for (const id of ids) launch(id);
  try {
    await waitForNodes(ids, 'starting');
  } catch (err) {
    for (const id of ids) await kill(id, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw err;
  }

  const setNode = (id: number, up: boolean) => {
    const proxies = [clientProxy.get(id)!];
    for (const other of ids)
      if (other !== id) proxies.push(controllerProxy.get(`${id}>${other}`)!, controllerProxy.get(`${other}>${id}`)!);
    for (const p of proxies)
      if (up) p.restore();
      else p.cut();
    clientProxyUp.set(id, up);
  };

  return {
    brokers: addresses.join(','),
    nodes: ids.map((id) => ({ id, address: addresses[id - 1]!, pid: () => (running(id) ? children.get(id)!.pid : undefined) })),
    kill9: (id) => kill(id, 'SIGKILL'),
    async restart(id) {
      if (!running(id)) launch(id);
      await waitForNodes([id], `restarting node ${id}`);
    },
    isolate: (id) => setNode(id, false),
    reconnect: (id) => setNode(id, true),
    async leaderOf(topic, partition) {
      const a = admin(reachable());
      try {
        await a.connect();
        const { topics } = await a.fetchTopicMetadata({ topics: [topic] });
        return topics[0]?.partitions.find((p) => p.partitionId === partition)?.leader ?? -1;
      } finally {
        await a.disconnect().catch(() => {});
      }
    },
    liveNodes: () => liveNodes(),
    activeController: () => {
      const seen = ids.filter((id) => running(id) && clientProxyUp.get(id)).map((id) => controllerSeen.get(id));
      return seen.find((c) => c !== undefined);
    },
    output: (id) => output.get(id) ?? '',
    async stop() {
      await Promise.all(ids.map((id) => endProcess(children.get(id), 'SIGTERM', 5_000)));
      process.off('exit', killAll);
      for (const p of [...clientProxy.values(), ...controllerProxy.values()]) await p.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
