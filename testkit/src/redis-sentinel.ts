// A Redis group behind Sentinel of a test's own (Debian's redis-server; a sentinel is
// `redis-server <conf> --sentinel`): a master, a replica and three sentinels on free loopback ports,
// for the failover tests (ops/src/outage-redis-sentinel.int.test.ts). No persistence: the replica is
// the copy. Sentinel rewrites the config files as the group changes.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedis, redisNodeConf, sentinelConf, type Redis } from '@watchpost/runtime';
import { freePort } from './ports.ts';
import { waitFor } from './kafka.ts';
import { endProcess, isRunning } from './own-server.ts';

export interface SentinelGroupNode {
  port: number;
  alive(): boolean;
  kill9(): Promise<void>;
}

export interface OwnSentinelGroup {
  masterName: string;
  /** [0] starts as the master, [1] as its replica. */
  nodes: SentinelGroupNode[];
  sentinelPorts: number[];
  /** REDIS_URL (the first master's address; with the sentinels only its credentials and db count), REDIS_SENTINELS, REDIS_SENTINEL_MASTER. */
  env: { REDIS_URL: string; REDIS_SENTINELS: string; REDIS_SENTINEL_MASTER: string };
  /** The master's port as each sentinel answers it (null: that sentinel did not answer). */
  masterPorts(): Promise<(number | null)[]>;
  /** ROLE of each node ('master', 'slave', or 'down'). */
  roles(): Promise<string[]>;
  stop(): Promise<void>;
}

function startProcess(args: string[]): ChildProcess {
  return spawn('redis-server', args, { stdio: 'ignore' });
}

/** One short-lived client per question: a dead server answers null, it never blocks the test. */
async function ask<T>(port: number, fn: (r: Redis) => Promise<T>): Promise<T | null> {
  const r = createRedis(`redis://127.0.0.1:${port}`, { timeouts: { connectMs: 500, commandMs: 1000 } });
  r.options.maxRetriesPerRequest = 0;
  r.options.retryStrategy = () => null;
  try {
    return await fn(r);
  } catch {
    return null;
  } finally {
    r.disconnect();
  }
}

/** Starts the group; resolves once the replica is in sync and every sentinel knows the replica and the two other sentinels. */
export async function startSentinelGroup(
  opts: { masterName?: string; downAfterMs?: number; failoverTimeoutMs?: number } = {},
): Promise<OwnSentinelGroup> {
  const masterName = opts.masterName ?? 'watchpost';
  const root = await mkdtemp(join(tmpdir(), 'watchpost-sentinel-'));
  const nodePorts = [await freePort(), await freePort()];
  const sentinelPorts = [await freePort(), await freePort(), await freePort()];
  const children: ChildProcess[] = [];
  const nodes: SentinelGroupNode[] = [];
  for (const [i, port] of nodePorts.entries()) {
    const dir = join(root, `node-${i + 1}`);
    await mkdir(dir);
    const conf = join(dir, 'redis.conf');
    const replicaOf = i === 0 ? undefined : { host: '127.0.0.1', port: nodePorts[0]! };
    await writeFile(conf, redisNodeConf({ dir, port, replicaOf, persistence: false, maxmemory: '256mb' }));
    const child = startProcess([conf]);
    children.push(child);
    nodes.push({ port, alive: () => isRunning(child), kill9: () => endProcess(child, 'SIGKILL') });
  }
  await waitFor(
    'the replica in sync',
    () => ask(nodePorts[1]!, async (r) => /master_link_status:up/.test(await r.info('replication'))),
    (ok) => ok === true,
    20_000,
  );
  for (const [i, port] of sentinelPorts.entries()) {
    const dir = join(root, `sentinel-${i + 1}`);
    await mkdir(dir);
    const conf = join(dir, 'sentinel.conf');
    await writeFile(
      conf,
      sentinelConf({
        dir,
        port,
        masterName,
        master: { host: '127.0.0.1', port: nodePorts[0]! },
        quorum: 2,
        downAfterMs: opts.downAfterMs ?? 1000,
        failoverTimeoutMs: opts.failoverTimeoutMs ?? 5000,
      }),
    );
    children.push(startProcess([conf, '--sentinel']));
  }
  // A sentinel that has not yet heard its peers cannot win the election: wait until each knows them all.
  const views = () =>
    Promise.all(
      sentinelPorts.map((p) =>
        ask(p, async (r) => {
          const flat = (await r.call('SENTINEL', 'MASTER', masterName)) as string[];
          const m = Object.fromEntries(flat.flatMap((v, i) => (i % 2 === 0 ? [[v, flat[i + 1]]] : [])));
          return `${m['num-slaves']}/${m['num-other-sentinels']}`;
        }),
      ),
    );
  await waitFor('every sentinel to know the replica and two peers', views, (v) => v.every((x) => x === '1/2'), 30_000);

  return {
    masterName,
    nodes,
    sentinelPorts,
    env: {
      REDIS_URL: `redis://127.0.0.1:${nodePorts[0]}`,
      REDIS_SENTINELS: sentinelPorts.map((p) => `127.0.0.1:${p}`).join(','),
      REDIS_SENTINEL_MASTER: masterName,
    },
    masterPorts: () =>
      Promise.all(
        sentinelPorts.map((p) =>
          ask(p, async (r) => Number(((await r.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName)) as string[])[1])),
        ),
      ),
    roles: () =>
      Promise.all(nodePorts.map(async (p) => (await ask(p, async (r) => ((await r.call('ROLE')) as string[])[0]!)) ?? 'down')),
    async stop() {
      await Promise.all(children.map((c) => endProcess(c, 'SIGTERM')));
      await rm(root, { recursive: true, force: true });
    },
  };
}
