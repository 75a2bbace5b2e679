// The agent poll (ingest) with version references (actions worker reading tags of local bare git
// repositories), the git test, agent commands and the automatic update fallback, on the real stores;
// results only from the agent that fetched the command, and polls under the events' rate limits (issue 33).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { randomBytes } from 'node:crypto';
import { createKafka, createQueue, createRedis, type Redis } from '@watchpost/runtime';
import { createApiKey, loadSecretsKey } from '@watchpost/core';
import { ACTIONS_QUEUE, type ActionsQueueJob } from '@watchpost/schemas';
import { memoryLogger, rdpMonitor, waitFor, windowsAgent } from '@watchpost/testkit';
import { addUser, createApiHarness, login, type ApiHarness } from '@watchpost/testkit/api';
import {
  createTestGitRepo,
  insertHost,
  runUpdateFallback,
  startActionsWorker,
  type TestGitRepo,
  type TestHost,
} from '@watchpost/testkit/actions';
import { buildIngestApp } from './app.ts';

let h: ApiHarness;
let ingest: FastifyInstance;
let redis: Redis;
let kafka: ReturnType<typeof createKafka>;
let worker: Awaited<ReturnType<typeof startActionsWorker>>;
let repo: TestGitRepo;
let admin: string;
let key: string;
let keyId: number;
const ids = { old: 0, current: 0, win: 0 };
/** The agent instance each seeded host is bound to (with `key`). */
const inst = { 'lnx-old': 'inst-old', 'lnx-current': 'inst-current', 'win-a': 'inst-win' } as Record<string, string>;
/** A poll body as the host's bound agent sends it. */
const as = (hostname: string, extra: object = {}) => ({ hostname, agent_instance_id: inst[hostname], ...extra });

async function api(method: 'GET' | 'POST' | 'PUT', path: string, payload?: object) {
  const r = await h.app.inject({ method, url: `/api/v1${path}`, headers: { authorization: `Bearer ${admin}` }, payload });
  return { status: r.statusCode, body: r.json() };
}
async function agent(path: string, payload: object | string, apiKey = key) {
  const r = await ingest.inject({
    method: 'POST',
    url: `/api/v1${path}`,
    headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}) },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
  return { status: r.statusCode, body: r.body ? r.json() : null };
}
/**
 * Inserts a host row bound to `key` and to the agent instance `instance` (the agent poll serves a host's
 * commands and update only to that agent); returns its id.
 */
const insertBoundHost = (
  hostname: string,
  product: TestHost['product'],
  version: string,
  address: string,
  instance = inst[hostname],
) => insertHost(h.stores.pg, { hostname, product, version, address, agentInstanceId: instance, boundKeyId: keyId });
const hostRow = async (hostname: string) =>
  (await api('GET', `/hosts?search=${hostname}`)).body.items.find((x: { hostname: string }) => x.hostname === hostname);

beforeAll(async () => {
  repo = createTestGitRepo();
  repo.commit({ README: '1.0.0' }, { tag: 'v1.0.0' });
  repo.commit({ README: '1.2.0' }, { tag: 'v1.2.0' });
  repo.commit({ README: '2.0.0-rc.1' }, { tag: 'v2.0.0-rc.1' });
  h = await createApiHarness('agent_poll', {
    env: {
      SERVICE_AGENT_UPDATE_ALLOW_FILE_URLS: 'true',
      SERVICE_INGEST_KEY_CACHE_SECONDS: '0',
      SERVICE_SECRETS_KEY: randomBytes(32).toString('base64'),
      SERVICE_ACTION_TIMEOUT_MS: '10000',
    },
  });
  redis = createRedis(h.config.redisUrl);
  kafka = createKafka(h.config.kafkaBrokers, 'agent-poll-test');
  ({ app: ingest } = await buildIngestApp({ config: h.config, log: memoryLogger().log, redis, pg: h.stores.pg, kafka }));
  worker = await startActionsWorker(h.config);
  ({ key, id: keyId } = await createApiKey(h.stores.pg, 'agents'));
  await addUser(h, 'ada', 'admin');
  admin = (await login(h, 'ada', 'pw-ada-secret')).json().access_token;
  ids.old = await insertBoundHost('lnx-old', 'ssh-monitor', '1.0.0', '10.0.0.1');
  ids.current = await insertBoundHost('lnx-current', 'ssh-monitor', '1.2.0', '10.0.0.2');
  ids.win = await insertBoundHost('win-a', 'rdp-login-monitor', '0.1.0', '10.0.0.3');
});

afterAll(async () => {
  await worker?.close();
  await ingest?.close();
  await redis?.quit();
  await h?.close();
  repo?.close();
});

describe('git connectivity test (unsaved values)', () => {
  it('reads the tags and checks the branch without saving anything', async () => {
    const r = await api('POST', '/settings/agent-updates/git-test', { git_url: repo.url, branch: 'main' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.result).toEqual({
      ok: true,
      branch_found: true,
      ref_kind: 'branch',
      commit: expect.stringMatching(/^[0-9a-f]{40}$/),
      tags: 3,
      latest_version: '1.2.0',
      version_source: 'tag',
    });
    expect((await api('GET', '/settings/agent-updates')).body.linux.git_url).toBe('');
  });

  it('a missing branch or repository is a 400 with the reason; other schemes never reach git', async () => {
    const nb = await api('POST', '/settings/agent-updates/git-test', { git_url: repo.url, branch: 'nope' });
    expect(nb.status).toBe(400);
    expect(nb.body.error.message).toMatch(/no branch nope/);
    const nr = await api('POST', '/settings/agent-updates/git-test', { git_url: 'file:///nonexistent/repo.git', branch: 'main' });
    expect(nr.status).toBe(400);
    expect(nr.body.error.message).toMatch(/git ls-remote file:\/\/\/nonexistent/);
    for (const git_url of ['ext::sh -c touch% /tmp/pwned', 'http://example.org/x.git', '--upload-pack=id']) {
      const r = await api('POST', '/settings/agent-updates/git-test', { git_url, branch: 'main' });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_FAILED');
    }
    expect((await api('POST', '/settings/agent-updates/git-test', { git_url: repo.url, branch: '--all' })).status).toBe(400);
  });
});

describe('version references', () => {
  /** The agent-update settings once the actions worker has read `version` as the newest linux release tag. */
  const linuxLatestVersion = (version: string) =>
    waitFor(
      `the linux latest version ${version}`,
      () => api('GET', '/settings/agent-updates'),
      (r) => r.body.linux.latest_version === version,
      15_000,
      100,
    );

  it('flags hosts older than the newest release tag; the flags follow a new tag', async () => {
    const put = await api('PUT', '/settings/agent-updates', { linux: { git_url: repo.url, branch: 'main' } });
    expect(put.status).toBe(200);
    const s = await linuxLatestVersion('1.2.0');
    expect(s.body.linux).toMatchObject({ git_url: repo.url, branch: 'main', latest_version: '1.2.0', error: null });
    expect(await hostRow('lnx-old')).toMatchObject({ agent_version: '1.0.0', latest_version: '1.2.0', outdated: true });
    expect(await hostRow('lnx-current')).toMatchObject({ latest_version: '1.2.0', outdated: false });
    expect(await hostRow('win-a')).toMatchObject({ latest_version: null, outdated: false });
    expect((await api('GET', `/hosts/${ids.old}`)).body).toMatchObject({ outdated: true });

    repo.commit({ README: '1.3.0' }, { tag: 'v1.3.0' });
    await api('PUT', '/settings/agent-updates', { linux: { git_url: repo.url } });
    await linuxLatestVersion('1.3.0');
    expect(await hostRow('lnx-current')).toMatchObject({ latest_version: '1.3.0', outdated: true });
  });
});

describe('agent poll', () => {
  it('needs an agent key and a valid body', async () => {
    expect((await agent('/agent/poll', { hostname: 'lnx-old' }, '')).status).toBe(401);
    expect((await agent('/agent/poll', { hostname: 'lnx-old' }, 'wpk_wrong')).status).toBe(401);
    const bad = await agent('/agent/poll', { hostname: '', extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
    expect((await agent('/agent/poll', '{not json')).status).toBe(400);
  });

  it('offers the pending self-update to an outdated agent only, and records the offer', async () => {
    const r = await agent('/agent/poll', as('lnx-old', { product: 'ssh-monitor', product_version: '1.0.0' }));
    expect(r.status).toBe(200);
    expect(r.body.update).toEqual({ version: '1.3.0', git_url: repo.url, branch: 'main' });
    const offers = await h.stores.pg.query("SELECT version FROM agent_update_offers WHERE hostname = 'lnx-old'");
    expect(offers.rows).toEqual([{ version: '1.3.0' }]);
    // Stored 1.2.0: the agent's own 1.3.0 only holds the offer back (it just updated, its event is on the way).
    const up = await agent('/agent/poll', as('lnx-current', { product: 'ssh-monitor', product_version: '1.3.0' }));
    expect(up.body.update).toBeNull();
  });

  it('returns the desired configuration (all, then the kind)', async () => {
    const put = await api('PUT', '/settings/agent-config', {
      all: { log_level: 'info', poll_interval_seconds: 30 },
      linux: { log_level: 'debug' },
    });
    expect(put.status).toBe(200);
    const r = await agent('/agent/poll', as('lnx-old', { product: 'ssh-monitor' }));
    expect(r.body.config).toEqual({ log_level: 'debug', poll_interval_seconds: 30 });
    expect(r.body.poll_interval_seconds).toBe(30);
    const w = await agent('/agent/poll', as('win-a', { product: 'rdp-login-monitor' }));
    expect(w.body.config).toEqual({ log_level: 'info', poll_interval_seconds: 30 });
  });

  it('delivers a command once, takes its result once, and shows it in the API', async () => {
    const c = await api('POST', `/hosts/${ids.old}/agent-commands`, { kind: 'send_inventory', params: { full: true } });
    expect(c.status).toBe(201);
    expect((await api('POST', `/hosts/${ids.old}/agent-commands`, { kind: 'rm -rf /' })).status).toBe(400);
    const first = await agent('/agent/poll', as('lnx-old'));
    expect(first.body.commands).toEqual([
      { id: c.body.id, kind: 'send_inventory', params: { full: true }, created_at: c.body.created_at },
    ]);
    expect((await agent('/agent/poll', as('lnx-old'))).body.commands).toEqual([]);
    expect((await agent('/agent/poll', as('lnx-current'))).body.commands).toEqual([]);
    const other = await agent(`/agent/commands/${c.body.id}/result`, { ...as('lnx-current'), status: 'succeeded' });
    expect(other.status).toBe(404);
    const res = await agent(`/agent/commands/${c.body.id}/result`, {
      ...as('lnx-old'),
      status: 'succeeded',
      exit_code: 0,
      output: 'sent',
    });
    expect(res.status).toBe(200); // was 204 (issue 22: agents count only 200/201)
    expect((await agent(`/agent/commands/${c.body.id}/result`, { ...as('lnx-old'), status: 'failed' })).status).toBe(409);
    const listed = await api('GET', `/hosts/${ids.old}/agent-commands`);
    expect(listed.body.items[0]).toMatchObject({ id: c.body.id, status: 'succeeded', result: { exit_code: 0, output: 'sent' } });
  });

  it('is in the OpenAPI document for agent authors', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    expect(doc.paths['/api/v1/agent/poll'].post.security).toEqual([{ agentKey: [] }]);
    expect(doc.paths['/api/v1/agent/commands/{id}/result'].post.responses['409']).toBeDefined();
    expect(doc.paths['/api/v1/hosts/{id}/actions/winrm-test'].post).toBeDefined();
  });
});

describe('automatic update fallback', () => {
  // runUpdateFallback called directly, as the actions role's minute scan would.
  const fallback = {} as { deps: Parameters<typeof runUpdateFallback>[0]; queue: Parameters<typeof runUpdateFallback>[1] };
  const scan = () => runUpdateFallback(fallback.deps, fallback.queue);
  let queueRedis: Redis;
  beforeAll(async () => {
    queueRedis = createRedis(h.config.redisUrl, { forBullmq: true });
    fallback.queue = createQueue<ActionsQueueJob>(h.config, ACTIONS_QUEUE, queueRedis);
    fallback.deps = {
      pg: h.stores.pg,
      config: h.config,
      log: memoryLogger().log,
      secretsKey: await loadSecretsKey(h.config.actions.secretsKey, h.config.stateDir),
    };
  });
  afterAll(async () => {
    await fallback.queue?.close();
    await queueRedis?.quit();
  });

  it('starts the SSH update as `system` for a host that ignored the offer; a host that caught up is just closed', async () => {
    await h.stores.pg.query("UPDATE agent_update_offers SET offered_at = now() - interval '2 hours' WHERE hostname = 'lnx-old'");
    await h.stores.pg.query(
      "INSERT INTO agent_update_offers (hostname, version, offered_at) VALUES ('lnx-current', '1.2.0', now() - interval '2 hours')",
    );
    const r = await scan();
    expect(r.started).toHaveLength(1);
    expect(r.caught_up).toBe(1);
    // Its job is stored with the action: the requeue sweep puts it back when Redis lost it.
    const stored = (await h.stores.pg.query('SELECT job FROM actions WHERE id = $1', [r.started[0]])).rows[0].job;
    expect(stored).toMatchObject({ kind: 'agent.update', agent: 'linux', actor_role: 'system', target: { hostname: 'lnx-old' } });
    expect(stored).not.toHaveProperty('action_id');
    expect((await scan()).started).toEqual([]);
    const a = await waitFor(
      'the fallback update to end',
      () => api('GET', `/actions/${r.started[0]}`),
      (x) => x.body.status === 'failed' || x.body.status === 'succeeded',
      15_000,
      100,
    );
    expect(a.body).toMatchObject({
      kind: 'agent.update',
      actor: 'system',
      hostname: 'lnx-old',
      params: { agent: 'linux', fallback_for_version: '1.3.0', git_url: repo.url },
    });
    // No SSH credentials in this test: the run is recorded with that reason (tested end to end in processors).
    expect(a.body.error).toMatch(/SSH is not configured/);
    const offers = await h.stores.pg.query(
      'SELECT hostname, version, done_at IS NOT NULL AS done, fallback_action_id FROM agent_update_offers ORDER BY hostname, version',
    );
    expect(offers.rows).toEqual([
      { hostname: 'lnx-current', version: '1.2.0', done: true, fallback_action_id: null },
      // offered by a poll just now: not due yet
      { hostname: 'lnx-current', version: '1.3.0', done: false, fallback_action_id: null },
      { hostname: 'lnx-old', version: '1.3.0', done: false, fallback_action_id: r.started[0] },
    ]);
  });

  it('never sends WinRM credentials on its own unless HTTPS with the certificate check is set', async () => {
    // An agent key holder can make a host's address anything: over HTTP (allowed for a lab) or without
    // the certificate check, the automatic update would hand the credentials to that address.
    expect((await api('PUT', '/settings/agent-updates', { windows: { git_url: repo.url, branch: 'main' } })).status).toBe(200);
    const put = await api('PUT', '/settings/winrm', { transport: 'http', allow_unencrypted: true });
    expect(put.body).toMatchObject({ transport: 'http', allow_unencrypted: true });
    await h.stores.pg.query(
      "INSERT INTO agent_update_offers (hostname, version, offered_at) VALUES ('win-a', '1.3.0', now() - interval '2 hours')",
    );
    try {
      const r = await scan();
      expect(r.started).toEqual([]);
      const a = await h.stores.pg.query(
        "SELECT status, error FROM actions WHERE hostname = 'win-a' AND actor = 'system' AND kind = 'agent.update'",
      );
      expect(a.rows).toEqual([{ status: 'failed', error: expect.stringMatching(/needs HTTPS with the certificate check/) }]);
      const jobs = await fallback.queue.getJobs(['waiting', 'active', 'delayed', 'completed', 'failed']);
      expect(
        jobs.filter((j) => j.name === 'agent.update' && j.data.kind === 'agent.update' && j.data.target.hostname === 'win-a'),
      ).toEqual([]);
    } finally {
      await api('PUT', '/settings/winrm', { transport: 'https', allow_unencrypted: false });
    }
  });
});

describe('commands go only to their agent (issue 21)', () => {
  // lnx-bound is bound to `key` and instance inst-bound; `otherKey` is another valid agent key (the
  // bootstrap key of a fleet sits on every host, so any host can present one).
  let otherKey: string;
  let hostId: number;
  const self = { hostname: 'lnx-bound', agent_instance_id: 'inst-bound' };
  const status = async (id: number) =>
    (await h.stores.pg.query('SELECT status, result FROM agent_commands WHERE id = $1', [id])).rows[0];
  const offersFor = async (hostname: string) =>
    (await h.stores.pg.query('SELECT version FROM agent_update_offers WHERE hostname = $1', [hostname])).rows;
  const nothing = { commands: [], config: {}, update: null, poll_interval_seconds: 60 };

  beforeAll(async () => {
    otherKey = (await createApiKey(h.stores.pg, 'other-agents')).key;
    // Outdated (latest linux release is 1.3.0 by now): the bound agent is offered the update.
    hostId = await insertBoundHost('lnx-bound', 'ssh-monitor', '1.0.0', '10.0.0.9', 'inst-bound');
  });

  it('another key or instance gets nothing, and the commands stay pending for the bound agent', async () => {
    const c = await api('POST', `/hosts/${hostId}/agent-commands`, { kind: 'send_inventory', params: {} });
    expect(c.status).toBe(201);
    const foreign = [
      { body: self, apiKey: otherKey }, // the right instance id under another key
      { body: { ...self, agent_instance_id: 'inst-other' }, apiKey: key }, // another instance under the bound key
      { body: { hostname: 'lnx-bound' }, apiKey: key }, // no instance id for a host bound to one
      { body: { ...self, product: 'ssh-monitor', product_version: '0.0.1' }, apiKey: otherKey },
    ];
    for (const f of foreign) {
      const r = await agent('/agent/poll', f.body, f.apiKey);
      expect(r.status, JSON.stringify(f)).toBe(200);
      expect(r.body, JSON.stringify(f)).toEqual(nothing);
    }
    // The same answer as for a host nobody knows: another key learns nothing about lnx-bound.
    expect((await agent('/agent/poll', { hostname: 'no-such-host', agent_instance_id: 'x' }, otherKey)).body).toEqual(nothing);
    expect(await status(c.body.id)).toEqual({ status: 'pending', result: null });
    expect(await offersFor('lnx-bound')).toEqual([]);

    const mine = await agent('/agent/poll', self);
    expect(mine.body.commands).toEqual([{ id: c.body.id, kind: 'send_inventory', params: {}, created_at: c.body.created_at }]);
    expect((await status(c.body.id)).status).toBe('delivered');
  });

  it("refuses another key's or instance's result and changes nothing", async () => {
    const c = await api('POST', `/hosts/${hostId}/agent-commands`, { kind: 'send_inventory', params: {} });
    expect((await agent('/agent/poll', self)).body.commands.map((x: { id: number }) => x.id)).toEqual([c.body.id]);
    const url = `/agent/commands/${c.body.id}/result`;
    const forged = { status: 'succeeded', exit_code: 0, output: 'forged' };
    for (const [body, apiKey] of [
      [{ ...self, ...forged }, otherKey],
      [{ ...self, ...forged, agent_instance_id: 'inst-other' }, key],
      [{ hostname: 'lnx-bound', ...forged }, key],
    ] as const) {
      const r = await agent(url, body, apiKey);
      expect(r.status, JSON.stringify(body)).toBe(404);
      expect(r.body.error.code).toBe('NOT_FOUND');
      expect(await status(c.body.id)).toEqual({ status: 'delivered', result: null });
    }
    // 200 with a small body (was 204: the Windows agent counts only 200/201 as delivered, issue 22).
    expect((await agent(url, { ...self, status: 'failed', exit_code: 3, output: 'real' })).status).toBe(200);
    // Final: a second result, even from the bound agent, changes nothing.
    expect((await agent(url, { ...self, ...forged })).status).toBe(409);
    expect(await status(c.body.id)).toEqual({ status: 'failed', result: { exit_code: 3, output: 'real' } });
  });

  it('takes no result before delivery: answered as an unknown id, then the fetcher answers (issue 33)', async () => {
    const c = await api('POST', `/hosts/${hostId}/agent-commands`, { kind: 'send_inventory', params: {} });
    const early = await agent(`/agent/commands/${c.body.id}/result`, { ...self, status: 'succeeded', output: 'early' });
    // The same status and body as an id that does not exist: pending ids cannot be probed.
    expect(early).toEqual(await agent('/agent/commands/999999999/result', { ...self, status: 'succeeded' }));
    expect(early).toEqual({
      status: 404,
      body: { error: { code: 'NOT_FOUND', message: 'no such command delivered to this agent' } },
    });
    expect(await status(c.body.id)).toEqual({ status: 'pending', result: null });
    expect((await agent('/agent/poll', self)).body.commands.map((x: { id: number }) => x.id)).toEqual([c.body.id]);
    const url = `/agent/commands/${c.body.id}/result`;
    expect((await agent(url, { ...self, status: 'succeeded', output: 'sent' })).status).toBe(200);
    expect(await status(c.body.id)).toEqual({ status: 'succeeded', result: { exit_code: null, output: 'sent' } });
  });

  it('creates no update offer from what an agent claims; the bound agent of an outdated host gets its update', async () => {
    const made = await agent('/agent/poll', { hostname: 'made-up', product: 'ssh-monitor', product_version: '0.0.1' });
    expect(made.body.update).toBeNull();
    expect(await offersFor('made-up')).toEqual([]);
    // A bound agent claiming an old version for a host whose stored version is current gets none either.
    await h.stores.pg.query("UPDATE hosts SET product_version = '1.3.0' WHERE hostname = 'lnx-current'");
    const caught = await agent('/agent/poll', as('lnx-current', { product_version: '0.0.1' }));
    expect(caught.body.update).toBeNull();

    const r = await agent('/agent/poll', self);
    expect(r.body.update).toEqual({ version: '1.3.0', git_url: repo.url, branch: 'main' });
    expect(await offersFor('lnx-bound')).toEqual([{ version: '1.3.0' }]);
  });
});

describe("the Windows agent's command channel (issue 22)", () => {
  // win-cmd is bound to `key` and instance inst-wcmd; the agent polls with GET and a Bearer key, and posts
  // results without hostname or instance id (Sac-Client.ps1).
  let otherKey: string;
  let hostId: number;
  type WinCommand = { id: number; type: string; params: { session_id: number | null }; run_as: null };
  const status = async (id: number) =>
    (await h.stores.pg.query('SELECT status, result FROM agent_commands WHERE id = $1', [id])).rows[0];
  async function win(method: 'GET' | 'POST', path: string, payload?: object, apiKey = key) {
    const r = await ingest.inject({
      method,
      url: `/api/v1${path}`,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(payload ? { 'content-type': 'application/json; charset=utf-8' } : {}),
      },
      ...(payload ? { payload: JSON.stringify(payload) } : {}),
    });
    return { status: r.statusCode, body: r.body ? r.json() : null };
  }
  const poll = (instance: string, apiKey = key) =>
    win('GET', `/agent/commands?agent_instance_id=${encodeURIComponent(instance)}`, undefined, apiKey);

  beforeAll(async () => {
    otherKey = (await createApiKey(h.stores.pg, 'win-other')).key;
    hostId = await insertBoundHost('win-cmd', 'rdp-login-monitor', '2.1.7-SAC', '10.0.0.20', 'inst-wcmd');
    // Another host of the fleet, its agent under the same key (issue 33: the one that answers first).
    await insertBoundHost('win-evil', 'rdp-login-monitor', '2.1.7-SAC', '10.0.0.21', 'inst-evil');
  });

  it("serves queued qwinsta/logoff in the agent's shape, run_as null; other instances and keys get none", async () => {
    const q = await api('POST', `/hosts/${hostId}/agent-commands`, { kind: 'qwinsta', params: {} });
    const l = await api('POST', `/hosts/${hostId}/agent-commands`, { kind: 'logoff', params: { session_id: 3 } });
    expect([q.status, l.status]).toEqual([201, 201]);
    for (const [instance, apiKey] of [
      ['inst-other', key],
      ['inst-wcmd', otherKey],
    ] as const) {
      const r = await poll(instance, apiKey);
      expect(r.status, instance).toBe(200);
      expect(r.body).toEqual({ commands: [] });
    }
    expect((await win('GET', '/agent/commands')).body).toEqual({ commands: [] });
    expect(await status(q.body.id)).toEqual({ status: 'pending', result: null });

    const r = await poll('inst-wcmd');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      commands: [
        { id: expect.any(Number), type: 'qwinsta', params: { session_id: null }, run_as: null },
        { id: expect.any(Number), type: 'logoff', params: { session_id: 3 }, run_as: null },
      ],
    });
    // Issue 33: each id is the handle of this delivery, not the command id: random from 2^52 up, a JSON
    // number the agent reads exactly, known only to the agent that fetched it.
    const handles = (r.body.commands as WinCommand[]).map((c) => c.id);
    for (const id of handles) {
      expect(Number.isSafeInteger(id) && id >= 2 ** 52, String(id)).toBe(true);
      expect([q.body.id, l.body.id]).not.toContain(id);
    }
    expect(new Set(handles).size).toBe(2);
    expect((await status(q.body.id)).status).toBe('delivered');
    // Delivered: the next poll (60 s later) does not run them again.
    expect((await poll('inst-wcmd')).body).toEqual({ commands: [] });
  });

  it("stores the agent's result body (200) and the command is final; another key's result is 404", async () => {
    const c = await api('POST', `/hosts/${hostId}/agent-commands`, { kind: 'logoff', params: { session_id: 4 } });
    const [d] = (await poll('inst-wcmd')).body.commands as WinCommand[];
    expect(d).toMatchObject({ type: 'logoff', params: { session_id: 4 } });
    // The agent posts to the id its poll gave it (Submit-SacAgentCommandResult).
    const url = `/agent/commands/${d!.id}/result`;
    const forged = await win('POST', url, { status: 'completed', stdout: 'forged', stderr: '' }, otherKey);
    expect(forged.status).toBe(404);
    expect(forged.body.error.code).toBe('NOT_FOUND');
    expect(await status(c.body.id)).toEqual({ status: 'delivered', result: null });
    expect((await win('POST', '/agent/commands/999999/result', { status: 'failed', stdout: '', stderr: 'x' })).status).toBe(404);

    const r = await win('POST', url, { status: 'failed', stdout: '', stderr: 'exit code 1' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: d!.id, status: 'failed' });
    expect(await status(c.body.id)).toEqual({ status: 'failed', result: { exit_code: null, output: '', stderr: 'exit code 1' } });
    // Final: a second result changes nothing.
    expect((await win('POST', url, { status: 'completed', stdout: 'again', stderr: '' })).status).toBe(409);
    expect((await status(c.body.id)).status).toBe('failed');

    const q = await api('POST', `/hosts/${hostId}/agent-commands`, { kind: 'qwinsta', params: {} });
    const [dq] = (await poll('inst-wcmd')).body.commands as WinCommand[];
    const ok = await win('POST', `/agent/commands/${dq!.id}/result`, {
      status: 'completed',
      stdout: ' SESSIONNAME',
      stderr: '',
    });
    expect(ok).toEqual({ status: 200, body: { id: dq!.id, status: 'succeeded' } });
    expect(await status(q.body.id)).toEqual({
      status: 'succeeded',
      result: { exit_code: null, output: ' SESSIONNAME', stderr: '' },
    });
  });

  it('takes a result only from the agent that fetched the command; to anyone else every id looks unknown (issue 33)', async () => {
    // The Windows agent's body: no hostname, no instance id (Submit-SacAgentCommandResult).
    const forged = { status: 'completed', stdout: ' SESSIONNAME  USERNAME\r\n>rdp-tcp#1  mallory', stderr: '' };
    const unknown = await win('POST', '/agent/commands/999999999/result', forged);
    expect(unknown).toEqual({
      status: 404,
      body: { error: { code: 'NOT_FOUND', message: 'no such command delivered to this agent' } },
    });
    // A number the database cannot take exactly is invalid for everyone, never a 500.
    expect((await win('POST', '/agent/commands/99999999999999999999/result', forged)).status).toBe(400);

    const c = await api('POST', `/hosts/${hostId}/agent-commands`, { kind: 'logoff', params: { session_id: 5 } });
    const byId = `/agent/commands/${c.body.id}/result`;
    // Not delivered yet: a real id answers exactly as a random one, in either body.
    expect(await win('POST', byId, forged)).toEqual(unknown);
    expect(await win('POST', byId, { hostname: 'win-cmd', agent_instance_id: 'inst-wcmd', status: 'succeeded' })).toEqual(
      unknown,
    );
    expect(await status(c.body.id)).toEqual({ status: 'pending', result: null });

    // win-evil's agent polls for its own host (nothing) while win-cmd's fetches the logoff.
    expect((await poll('inst-evil')).body).toEqual({ commands: [] });
    const [d] = (await poll('inst-wcmd')).body.commands as WinCommand[];
    expect(d).toMatchObject({ type: 'logoff', params: { session_id: 5 } });
    const byHandle = `/agent/commands/${d!.id}/result`;
    // Another instance under the same key answers first: by the command id (guessable: ids count up), in
    // either body, with its own instance id or none; by the handle with its own instance id; by the handle
    // under another key. Each gets the answer of an unknown id, and the command stays open.
    const evil = { hostname: 'win-evil', agent_instance_id: 'inst-evil', status: 'succeeded', output: 'forged' };
    for (const [path, body, apiKey] of [
      [byId, forged, key],
      [byId, { ...forged, agent_instance_id: 'inst-evil' }, key],
      [byId, { hostname: 'win-cmd', status: 'succeeded', output: 'forged' }, key],
      [byId, evil, key],
      [byHandle, { ...forged, agent_instance_id: 'inst-evil' }, key],
      [byHandle, forged, otherKey],
    ] as const) {
      expect(await win('POST', path, body, apiKey), JSON.stringify([path, body])).toEqual(unknown);
    }
    expect(await status(c.body.id)).toEqual({ status: 'delivered', result: null });

    // The fetcher's result is still taken; its retry changes nothing (409, as before).
    const real = { status: 'completed', stdout: '', stderr: '' };
    expect(await win('POST', byHandle, real)).toEqual({ status: 200, body: { id: d!.id, status: 'succeeded' } });
    const again = await win('POST', byHandle, real);
    expect([again.status, again.body.error.code]).toEqual([409, 'CONFLICT']);
    expect((await win('POST', byHandle, { status: 'failed', stdout: '', stderr: 'other' })).status).toBe(409);
    expect(await status(c.body.id)).toEqual({ status: 'succeeded', result: { exit_code: null, output: '', stderr: '' } });
    // Answered: to anyone else it still looks unknown (it was 409 before, which told the id existed).
    expect(await win('POST', byId, forged)).toEqual(unknown);
    expect(await win('POST', byHandle, forged, otherKey)).toEqual(unknown);
    expect((await status(c.body.id)).status).toBe('succeeded');
  });
});

describe('agent requests pay into the rate limits of their key and host (issue 33)', () => {
  // Buckets are per ingest process: one of its own, whose host buckets hold 3 and refill once per 20 s.
  let flood: FastifyInstance;
  const instance = 'inst-flood';
  const get = (url: string) => flood.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });
  const post = (url: string, payload: object) =>
    flood.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: JSON.stringify(payload),
    });

  beforeAll(async () => {
    const config = { ...h.config, ingest: { ...h.config.ingest, ratePerHost: 0.05, rateHostBurst: 3 } };
    ({ app: flood } = await buildIngestApp({ config, log: memoryLogger().log, redis, pg: h.stores.pg, kafka }));
    await insertBoundHost('WIN-FLOOD', 'rdp-login-monitor', '2.1.7-SAC', '10.0.0.31', instance);
  });
  afterAll(async () => {
    await flood?.close();
  });

  it("a poll flood past the host's rate gets 429 with Retry-After, and so do its events and named results", async () => {
    const answers: Awaited<ReturnType<typeof get>>[] = [];
    for (let i = 0; i < 6; i++) answers.push(await get(`/api/v1/agent/commands?agent_instance_id=${instance}`));
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 429, 429, 429]);
    const refused = answers[3]!;
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.json().error).toEqual({
      code: 'RATE_LIMITED',
      message: expect.stringMatching(/^too many events and agent requests from this host; retry after \d+ s$/),
    });
    // The same bucket as the host's events (hostname and agent instance as its events name them).
    const event = rdpMonitor.heartbeat(windowsAgent('WIN-FLOOD', { agentInstanceId: instance }));
    const e = await post('/api/v1/events', event);
    expect([e.statusCode, e.json().error.code]).toEqual([429, 'RATE_LIMITED']);
    // Our result body names the host: refused the same way. The Windows agent's names none and is never
    // refused by a host's bucket (the agent does not re-send a result): unknown id, 404.
    expect(
      (await post('/api/v1/agent/commands/1/result', { hostname: 'WIN-FLOOD', agent_instance_id: instance, status: 'failed' }))
        .statusCode,
    ).toBe(429);
    expect((await post('/api/v1/agent/commands/999999999/result', { status: 'failed', stdout: '', stderr: '' })).statusCode).toBe(
      404,
    );
    // Another host under the same key is not held back.
    expect((await get('/api/v1/agent/commands?agent_instance_id=inst-wcmd')).statusCode).toBe(200);
  });
});
