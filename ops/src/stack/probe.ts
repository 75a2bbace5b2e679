// "Does this server answer its own protocol?" — not merely "is the port open".
import { createConnection } from 'node:net';
import pg from 'pg';
import { Kafka, logLevel } from 'kafkajs';
import type { StackServer, StackSettings } from './settings.ts';

function redisPing(url: string): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const sock = createConnection({ host: u.hostname, port: Number(u.port || 6379) });
    const done = (ok: boolean) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(1000, () => done(false));
    sock.on('error', () => done(false));
    sock.on('connect', () => sock.write('PING\r\n'));
    sock.on('data', (d) => done(d.toString().startsWith('+PONG')));
  });
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
      return redisPing(s.urls.redis);
    case 'clickhouse':
      return clickhousePing(s.urls.clickhouse);
    case 'kafka':
      return kafkaPing(s.urls.kafka, s.external.kafka ? 'any' : s.kafkaBrokers);
  }
}
