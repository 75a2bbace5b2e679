// "Does this server answer its own protocol?" — not merely "is the port open".
import { createConnection } from 'node:net';
import pg from 'pg';
import { Kafka, logLevel } from 'kafkajs';
import type { StackServer, StackSettings } from './settings.ts';

/** One inline command's first reply chunk ('' when the server does not answer). */
function redisCommand(host: string, port: number, command: string): Promise<string> {
  return new Promise((resolve) => {
    const sock = createConnection({ host, port });
    const done = (reply: string) => {
      sock.destroy();
      resolve(reply);
    };
    sock.setTimeout(1000, () => done(''));
    sock.on('error', () => done(''));
    sock.on('connect', () => sock.write(`${command}\r\n`));
    sock.on('data', (d) => done(d.toString()));
  });
}

async function redisPing(url: string): Promise<boolean> {
  const u = new URL(url);
  return (await redisCommand(u.hostname, Number(u.port || 6379), 'PING')).startsWith('+PONG');
}

/**
 * The stack's Sentinel group (STACK_REDIS_SENTINEL=1): every sentinel names a master, they agree, and
 * that master answers PING with a replica attached.
 */
async function redisSentinelPing(s: StackSettings): Promise<boolean> {
  const masters = await Promise.all(
    s.redisSentinels.split(',').map(async (hp) => {
      const reply = await redisCommand(
        '127.0.0.1',
        Number(hp.split(':')[1]),
        `SENTINEL get-master-addr-by-name ${s.redisSentinelMaster}`,
      );
      const m = /^\*2\r\n\$\d+\r\n([^\r]+)\r\n\$\d+\r\n(\d+)\r\n/.exec(reply);
      return m ? `${m[1]}:${m[2]}` : null;
    }),
  );
  if (masters[0] === null || masters.some((m) => m !== masters[0])) return false;
  const [host, port] = masters[0]!.split(':');
  return /connected_slaves:[1-9]/.test(await redisCommand(host!, Number(port), 'INFO replication'));
}

async function postgresPing(url: string): Promise<boolean> {
  const u = new URL(url);
  u.pathname = '/postgres';
  const client = new pg.Client({ connectionString: u.toString(), connectionTimeoutMillis: 1000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function clickhousePing(url: string): Promise<boolean> {
  try {
    const u = new URL(url);
    const res = await fetch(`${u.origin}/ping`, { signal: AbortSignal.timeout(1000) });
    return res.ok && (await res.text()).startsWith('Ok');
  } catch {
    return false;
  }
}

/** Answers with a controller and `want` brokers (the stack's own: as many as it starts; external: any). */
async function kafkaPing(brokers: string, want: number | 'any'): Promise<boolean> {
  const kafka = new Kafka({
    clientId: 'stack-probe',
    brokers: brokers.split(','),
    connectionTimeout: 1000,
    requestTimeout: 2000,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    const c = await admin.describeCluster();
    return (want === 'any' ? c.brokers.length > 0 : c.brokers.length === want) && c.controller !== null;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

export function probe(server: StackServer, s: StackSettings): Promise<boolean> {
  switch (server) {
    case 'postgres':
      return postgresPing(s.urls.postgres);
    case 'redis':
      return s.redisSentinel && !s.external.redis ? redisSentinelPing(s) : redisPing(s.urls.redis);
    case 'clickhouse':
      return clickhousePing(s.urls.clickhouse);
    case 'kafka':
      return kafkaPing(s.urls.kafka, s.external.kafka ? 'any' : s.kafkaBrokers);
  }
}
