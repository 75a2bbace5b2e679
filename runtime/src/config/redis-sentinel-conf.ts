// Config files of a Redis group behind Sentinel (a data node, a sentinel), written by the local stack
// (STACK_REDIS_SENTINEL=1) and by the test kit's own groups (testkit/src/redis-sentinel.ts). Sentinel
// rewrites both files as the group changes (the promoted node loses `replicaof`, the sentinels learn
// their peers and the new master), so they are written once and kept.

export interface RedisNodeConf {
  dir: string;
  port: number;
  /** The master this node starts as a replica of (none: it starts as the master). */
  replicaOf?: { host: string; port: number };
  /** AOF with fsync every second (the stack's, as its single Redis) or no persistence (tests). */
  persistence: boolean;
  maxmemory?: string;
}

export function redisNodeConf(n: RedisNodeConf): string {
  return [
    `port ${n.port}`,
    'bind 127.0.0.1',
    `dir ${n.dir}`,
    n.persistence ? 'appendonly yes' : 'appendonly no',
    'appendfsync everysec',
    'save ""',
    `maxmemory ${n.maxmemory ?? '1gb'}`,
    'maxmemory-policy noeviction',
    // A replica promoted by Sentinel takes writes; before that it refuses them (READONLY).
    'replica-read-only yes',
    ...(n.replicaOf ? [`replicaof ${n.replicaOf.host} ${n.replicaOf.port}`] : []),
    `logfile ${n.dir}/redis.log`,
    'daemonize no',
    '',
  ].join('\n');
}

export interface SentinelConf {
  dir: string;
  port: number;
  masterName: string;
  master: { host: string; port: number };
  /** Sentinels that must agree the master is down (2 of 3). */
  quorum: number;
  /** A master not answering this long is down (subjectively, then by quorum). */
  downAfterMs: number;
  failoverTimeoutMs: number;
}

export function sentinelConf(c: SentinelConf): string {
  return [
    `port ${c.port}`,
    'bind 127.0.0.1',
    `dir ${c.dir}`,
    `logfile ${c.dir}/sentinel.log`,
    'daemonize no',
    `sentinel monitor ${c.masterName} ${c.master.host} ${c.master.port} ${c.quorum}`,
    `sentinel down-after-milliseconds ${c.masterName} ${c.downAfterMs}`,
    `sentinel failover-timeout ${c.masterName} ${c.failoverTimeoutMs}`,
    `sentinel parallel-syncs ${c.masterName} 1`,
    '',
  ].join('\n');
}
