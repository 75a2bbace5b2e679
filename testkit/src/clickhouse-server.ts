// A ClickHouse server of a test's own (Debian's clickhouse-server, free loopback ports, a temp data
// dir), for faults a test must not apply to the shared stack's: kill -9, then a restart on the same
// data dir and ports. Its config is a minimal one of its own (the stack's lives in ops, which nothing
// imports).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';

export interface OwnClickhouse {
  httpPort: number;
  /** http://127.0.0.1:<httpPort> */
  url: string;
  pid(): number | undefined;
  /** SIGKILL to the server; resolves once it is gone. */
  kill9(): Promise<void>;
  /** Starts the server again on the same data dir and ports; resolves once it answers a query. */
  restart(): Promise<void>;
  /** SIGTERM (SIGKILL after 15 s) and removes the data dir. */
  stop(): Promise<void>;
}

async function answers(url: string): Promise<boolean> {
  try {
    const r = await fetch(`${url}/?query=SELECT%201`, { signal: AbortSignal.timeout(1000) });
    return r.ok && (await r.text()).trim() === '1';
  } catch {
    return false;
  }
}

function config(dir: string, httpPort: number, tcpPort: number): string {
  return `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>${dir}/log/server.log</log><errorlog>${dir}/log/error.log</errorlog><size>10M</size><count>1</count></logger>
  <http_port>${httpPort}</http_port>
  <tcp_port>${tcpPort}</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <max_connections>256</max_connections>
  <keep_alive_timeout>10</keep_alive_timeout>
  <max_concurrent_queries>100</max_concurrent_queries>
  <uncompressed_cache_size>16777216</uncompressed_cache_size>
  <mark_cache_size>16777216</mark_cache_size>
  <path>${dir}/data/</path>
  <tmp_path>${dir}/tmp/</tmp_path>
  <user_files_path>${dir}/user_files/</user_files_path>
  <format_schema_path>${dir}/format_schemas/</format_schema_path>
  <users_config>${dir}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mlock_executable>false</mlock_executable>
</yandex>
`;
}

const users = `<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>1000000000</max_memory_usage></default></profiles>
  <users>
    <default>
      <password></password>
      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
      <profile>default</profile>
      <quota>default</quota>
    </default>
  </users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`;

export async function startClickhouseServer(): Promise<OwnClickhouse> {
  const [httpPort, tcpPort] = [await freePort(), await freePort()];
  const dir = await mkdtemp(join(tmpdir(), 'watchpost-ch-'));
  for (const d of ['data', 'tmp', 'user_files', 'format_schemas', 'log']) await mkdir(join(dir, d), { recursive: true });
  await writeFile(join(dir, 'config.xml'), config(dir, httpPort, tcpPort));
  await writeFile(join(dir, 'users.xml'), users);
  const url = `http://127.0.0.1:${httpPort}`;
  let child: ChildProcess | undefined;
  let output = '';

  async function launch(): Promise<void> {
    // A port just freed by a killed server may be refused for a moment: started again until the deadline.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const c = spawn('clickhouse-server', ['--config-file', join(dir, 'config.xml')], { stdio: ['ignore', 'pipe', 'pipe'] });
      const keep = (d: Buffer) => (output = (output + d.toString()).slice(-4000));
      c.stdout!.on('data', keep);
      c.stderr!.on('data', keep);
      child = c;
      while (c.exitCode === null && c.signalCode === null) {
        if (await answers(url)) return;
        if (Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      if (c.exitCode === null && c.signalCode === null) {
        c.kill('SIGKILL');
        await once(c, 'exit');
      }
      if (Date.now() > deadline) throw new Error(`clickhouse-server on port ${httpPort} did not start: ${output}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  async function kill(signal: NodeJS.Signals): Promise<void> {
    if (!running()) return;
    const exited = once(child!, 'exit');
    child!.kill(signal);
    await exited;
  }

  await launch();
  return {
    httpPort,
    url,
    pid: () => (running() ? child!.pid : undefined),
    kill9: () => kill('SIGKILL'),
    restart: launch,
    async stop() {
      if (running()) {
        const t = setTimeout(() => child!.kill('SIGKILL'), 15_000);
        await kill('SIGTERM');
        clearTimeout(t);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
