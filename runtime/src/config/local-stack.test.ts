// The service's defaults follow the local stack's shape (local-stack.ts reads STACK_* when it loads, so
// each case runs in a process of its own): with the stack's ClickHouse cluster, CLICKHOUSE_URL is its
// first server and CLICKHOUSE_CLUSTER its name, unless CLICKHOUSE_URL names a server of the operator's.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const configModule = join(import.meta.dirname, 'config.ts');

function clickhouseDefaults(env: Record<string, string>): { url: string; cluster: string } {
  const script = `import { loadConfig } from ${JSON.stringify(configModule)};
const c = loadConfig(process.env);
process.stdout.write(JSON.stringify({ url: c.clickhouseUrl, cluster: c.clickhouseCluster }));`;
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(STACK_|CLICKHOUSE_)/.test(k)));
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...clean, ...env },
    encoding: 'utf8',
  });
  return JSON.parse(out) as { url: string; cluster: string };
}

describe('ClickHouse defaults and the local stack', () => {
  it('one server by default', () => {
    expect(clickhouseDefaults({})).toEqual({ url: 'http://127.0.0.1:18123', cluster: '' });
  });

  it("the stack's cluster when STACK_CLICKHOUSE_REPLICAS or _SHARDS is set", () => {
    expect(clickhouseDefaults({ STACK_CLICKHOUSE_REPLICAS: '2' })).toEqual({
      url: 'http://127.0.0.1:18131',
      cluster: 'watchpost',
    });
    expect(clickhouseDefaults({ STACK_CLICKHOUSE_SHARDS: '2', STACK_CLICKHOUSE_CLUSTER_HTTP_PORT: '28000' })).toEqual({
      url: 'http://127.0.0.1:28000',
      cluster: 'watchpost',
    });
  });

  it("an operator's CLICKHOUSE_URL is not taken for the stack's cluster", () => {
    expect(clickhouseDefaults({ STACK_CLICKHOUSE_REPLICAS: '2', CLICKHOUSE_URL: 'http://ch.example:8123' })).toEqual({
      url: 'http://ch.example:8123',
      cluster: '',
    });
  });
});
