// The launcher as an operator runs it: a real process, /health with the version, ordered shutdown on SIGTERM.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, VERSION } from '@watchpost/runtime';
import { createTestStores, freePort, testConfig } from '@watchpost/testkit';

const config = testConfig('launcher');
const stores = await createTestStores(config);
afterAll(() => stores.drop());

function launch(env: Record<string, string>, role = 'all') {
  const child = spawn(process.execPath, ['--disable-warning=TimeoutNegativeWarning', join(repoRoot, 'ops/src/start.ts'), role], {
    env: {
      ...process.env,
      DATABASE_URL: config.databaseUrl,
      CLICKHOUSE_DATABASE: config.clickhouseDatabase,
      KAFKA_TOPIC_PREFIX: config.topicPrefix,
      SERVICE_STATE_DIR: config.stateDir,
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => out };
}

async function waitForHealth(url: string, deadlineMs: number): Promise<Response> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    try {
      return await fetch(url);
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

describe('ops/src/start.ts', () => {
  it('serves /health and /healthz with the version, logs it at start, and shuts down in order on SIGTERM', async () => {
    const port = await freePort();
    const p = launch({ PORT: String(port) });
    const res = await waitForHealth(`http://127.0.0.1:${port}/health`, 60_000);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; version: string };
    expect(body.version).toBe(VERSION);
    expect(body.status).toBe('ok');
    const z = (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as { version: string };
    expect(z.version).toBe(VERSION);
    const ready = await fetch(`http://127.0.0.1:${port}/ready`);
    const readyBody = (await ready.json()) as { status: string; checks: Record<string, string> };
    expect([ready.status, readyBody.status]).toEqual([200, 'ready']);
    expect(Object.keys(readyBody.checks).sort()).toEqual([
      'correlate_consumer',
      'notify_consumer',
      'store_consumer',
      'stream_consumer',
    ]);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toContain('process_cpu_seconds_total');
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    const lines = p
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; version?: string; step?: string });
    expect(lines.find((l) => l.msg === 'starting')?.version).toBe(VERSION);
    const closed = lines.filter((l) => l.msg === 'closed').map((l) => l.step);
    expect(closed[0]).toBe('http');
    expect(closed.at(-1)).toBe('clients');
  });

  it('exits 0, not killed, on a SIGTERM that arrives while it is still starting', async () => {
    const p = launch({ PORT: String(await freePort()) });
    // Its first log line: roles are not started yet and nothing listens.
    while (!p.output().includes('"msg":"starting"')) await new Promise((r) => setTimeout(r, 5));
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.child.signalCode).toBeNull();
  });

  it('refuses a role that does not exist instead of failing after validation', async () => {
    const p = launch({}, 'pager');
    expect(await p.exited).toBe(2);
    expect(p.output()).toMatch(/SERVICE_ROLE: must be one of/);
  });

  it('refuses to start on a bad setting and names the variable', async () => {
    const p = launch({ SERVICE_HEARTBEAT_STALE_MINUTES: 'soon' });
    expect(await p.exited).toBe(2);
    expect(p.output()).toMatch(/SERVICE_HEARTBEAT_STALE_MINUTES: expected an integer/);
  });

  it('refuses a configured secret below the policy, naming the variable and not printing the value', async () => {
    const p = launch({ SERVICE_JWT_SECRET: 'too-short-secret' });
    expect(await p.exited).toBe(2);
    expect(p.output()).toMatch(/configuration error: SERVICE_JWT_SECRET: must be at least 32 bytes/);
    expect(p.output()).not.toContain('too-short-secret');
  });

  it('serves /metrics on its own address with a bearer token when METRICS_PORT and METRICS_TOKEN are set', async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const token = 'metrics-token-for-the-launcher-test-0123456789';
    const p = launch({ PORT: String(port), METRICS_PORT: String(metricsPort), METRICS_TOKEN: token }, 'ingest');
    try {
      expect((await waitForHealth(`http://127.0.0.1:${port}/health`, 60_000)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
      const url = `http://127.0.0.1:${metricsPort}/metrics`;
      expect((await fetch(url)).status).toBe(401);
      expect((await fetch(url, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
      const ok = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('ingest_events_total');
    } finally {
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
    }
  });
});
