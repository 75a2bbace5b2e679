// Remote actions in a real browser against the real API, the real `actions` worker role and a
// WS-Management test double over a real socket (testkit/src/wsman-double.ts): host page (WinRM test,
// sessions and log-off, SSH check failure with its reason, agent update through the agent's own
// Deploy-LoginMonitor.ps1, outdated flag from the repository's $ScriptVersion), event page
// (terminate an RDP session; gateway qwinsta and log-off as a monitor), Settings → Remote access
// (the target networks set there first, with their rules said in words; NTLM chosen there, password
// never shown, a wrong password refused with the WinRM reason, git test of unsaved values). The double
// speaks NTLM over plain HTTP (allowed for a lab), so every WinRM action here authenticates with it.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { EventEnvelope } from '@watchpost/schemas';
import { makeEnvelope } from '@watchpost/testkit';
import {
  createRdpAgentRepo,
  insertLinuxHost,
  insertWindowsHost,
  rdpAgentFiles,
  remoteActionEnv,
  startActionsWorker,
  startWsmanDouble,
  type ActionsWorker,
  type DoubleSession,
  type TestGitRepo,
  type WsmanDouble,
} from '@watchpost/testkit/actions';
import { axeSerious, chooseOption, confirmDialog, DESKTOP, screenshots } from './pages.ts';
import { ADA, MONA, browserTest } from './session.ts';

const WIN_USER = 'CORP\\svc-watchpost';
const WIN_PASSWORD = 'win-Pa55"word&';
// The Windows agent as released (rdp-login-monitor 2.1.7-SAC) and the version its repository's branch
// head states after one more commit (Login_Monitor.ps1's $ScriptVersion, as PTah/RDP-login-monitor: no tags).
const AGENT_FROM = '2.1.7-SAC';
const AGENT_TO = '2.1.8-SAC';

// The double and the repository first: the server's environment names them.
const t = browserTest('web_actions', async () => {
  win = await startWsmanDouble({ username: WIN_USER, password: WIN_PASSWORD, auth: 'ntlm' });
  repo = createRdpAgentRepo(AGENT_FROM);
  repo.commit({ 'version.txt': `${AGENT_TO}\n`, 'Login_Monitor.ps1': rdpAgentFiles(AGENT_TO)['Login_Monitor.ps1']! });
  // No password (set in the browser) and no target networks (the first test sets them there).
  const env = remoteActionEnv(
    { winrm: { double: win, username: WIN_USER }, targetNetworks: null },
    {
      SERVICE_ACTION_TIMEOUT_MS: '3000',
      SERVICE_ACTION_WAIT_MS: '6000',
      SERVICE_AGENT_UPDATE_ALLOW_FILE_URLS: 'true',
      // a fifth of it (5 s) is how long the update waits for the agent to report the new version
      SERVICE_AGENT_UPDATE_TIMEOUT_MS: '25000',
      SERVICE_SSH_USERNAME: 'watchpost',
      // the double does not download the bundle (windows-update.int.test.ts does)
      SERVICE_PUBLIC_URL: 'http://127.0.0.1:9',
      SERVICE_SSH_PORT: String(await closedPort()),
    },
  );
  return { env, users: [ADA, MONA] };
});
const { pageErrors } = t;
let win: WsmanDouble;
let repo: TestGitRepo;
let worker: ActionsWorker;
let page: Page;
let winHost: number;
let linuxHost: number;
const ev = { rdp: '', gateway: '' };

const SESSIONS: DoubleSession[] = [
  { session_name: 'services', username: '', id: 0, state: 'Disc' },
  { session_name: 'console', username: 'Administrator', id: 1, state: 'Active' },
  { session_name: 'rdp-tcp#12', username: 'alice', id: 2, state: 'Active' },
  { session_name: '', username: 'bob', id: 3, state: 'Disc' },
];
const resetSessions = () => win.sessions.splice(0, win.sessions.length, ...SESSIONS.map((s) => ({ ...s })));

const closedPort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });

const text = async (p: Page, sel: string) => (await p.innerText(sel)).replace(/\s+/g, ' ').trim();

/** Waits until the action shown under `testid` finished; returns its status, transport, result and error text. */
async function outcome(p: Page, testid: string, timeout = 20_000) {
  await p.waitForFunction(
    (id) => /^(succeeded|failed)$/.test(document.querySelector(`[data-testid=${id}-status]`)?.textContent?.trim() ?? ''),
    testid,
    { timeout },
  );
  const opt = async (sel: string) => ((await p.locator(sel).count()) ? text(p, sel) : '');
  return {
    status: await text(p, `[data-testid=${testid}-status]`),
    transport: await opt(`[data-testid=${testid}-transport]`),
    result: await opt(`[data-testid=${testid}-result]`),
    error: await opt(`[data-testid=${testid}-error]`),
  };
}

/**
 * Windows running the update script (processors handlers/agent-update.ts windowsUpdateScript): the bundle
 * it names by SHA-256 is the one the service built from the repository, its Deploy-LoginMonitor.ps1 runs
 * on the unpacked folder and writes deployed_version.txt (printed as WATCHPOST-DEPLOYED, its deploy.log
 * lines as WATCHPOST-LOG), and the restarted monitor reports the new version, stored and applied by the
 * real correlator. The download and unpacking themselves are covered by
 * processors/src/actions/windows-update.int.test.ts (the double cannot reach SERVICE_PUBLIC_URL here).
 */
async function deployLikeWindows(script: string) {
  const sha256 = /^\$sha256 = '([0-9a-f]{64})'$/m.exec(script)?.[1];
  if (!sha256 || !/ -File \$deploy -SourceShareRoot \$staging /.test(script))
    return { stdout: '', stderr: 'not the Deploy-LoginMonitor.ps1 update script', exitCode: 1 };
  const bundle = await t.srv.h.stores.pg.query<{ version: string }>('SELECT version FROM agent_bundles WHERE sha256 = $1', [
    sha256,
  ]);
  const version = bundle.rows[0]?.version;
  if (!version) return { stdout: '', stderr: 'agent bundle SHA-256 mismatch: download refused', exitCode: 1 };
  await t.srv.store([agentUpdatedEvent(version)], { correlate: true });
  return {
    stdout: [
      'WATCHPOST-DEPLOY-EXIT=0',
      `WATCHPOST-DEPLOYED=${version}`,
      'WATCHPOST-LOG Записана метка версии: C:\\ProgramData\\RDP-login-monitor\\deployed_version.txt',
      '',
    ].join('\r\n'),
    exitCode: 0,
  };
}

/** What the deployed monitor sends at once: Login_Monitor.ps1 -SendDeploySacNotice (Send-SacEvent agent.lifecycle). */
function agentUpdatedEvent(version: string): EventEnvelope {
  return {
    received_at: new Date().toISOString(),
    event: {
      schema_version: '1.0',
      event_id: randomUUID(),
      occurred_at: new Date().toISOString(),
      source: { product: 'rdp-login-monitor', product_version: version, agent_instance_id: 'w1' },
      host: { hostname: 'win-01', os_family: 'windows', display_name: 'win-01 (127.0.0.1)', ipv4: '127.0.0.1' },
      category: 'agent',
      type: 'agent.lifecycle',
      severity: 'info',
      title: `RDP agent updated to ${version}`,
      summary: `RDP login monitor deployed, version ${version} on win-01`,
      details: { lifecycle: 'updated', trigger: 'deploy', version, generated_by: 'agent' },
    },
  };
}

beforeAll(async () => {
  worker = await startActionsWorker(t.srv.h.config);
  const pg = t.srv.h.stores.pg;
  winHost = await insertWindowsHost(pg, 'win-01', { version: AGENT_FROM, agentInstanceId: 'w1', boundKeyId: 21 });
  // The gateway's own agent, bound and confirmed: only its events drive gateway actions (issue 33).
  await insertWindowsHost(pg, 'gw-01', { version: AGENT_FROM, address: '10.20.0.1', agentInstanceId: 'g1', boundKeyId: 22 });
  linuxHost = await insertLinuxHost(pg, 'lin-01', { version: '2.0.0' });
  const windows = { product: 'rdp-login-monitor' as const, product_version: AGENT_FROM, agent_instance_id: 'w1' };
  const envs = [
    makeEnvelope({
      type: 'rdp.login.success',
      source: windows,
      host: { hostname: 'win-01', os_family: 'windows' },
      details: { user: 'CORP\\alice' },
    }),
    makeEnvelope({
      type: 'rdg.connection.success',
      source: { ...windows, agent_instance_id: 'g1' },
      host: { hostname: 'gw-01', os_family: 'windows' },
      details: { user: 'CORP\\bob', internal_address: '127.0.0.1:3389' },
    }),
  ];
  await t.srv.store(envs.slice(0, 1), { agentKeyId: 21 });
  await t.srv.store(envs.slice(1), { agentKeyId: 22 });
  [ev.rdp, ev.gateway] = envs.map((e) => e.event.event_id) as [string, string];
  page = await t.openPage(DESKTOP, ADA);
}, 180_000);

afterAll(async () => {
  await worker?.close();
  await win?.close();
  repo?.close();
});

describe('remote actions in the browser', () => {
  it('settings: target networks start empty (nothing connects), are checked in words, and are saved', async () => {
    await page.goto(`${t.srv.url}/settings/remote-access`);
    await page.waitForSelector('[data-testid=target-networks-form]');
    expect(await text(page, '[data-testid=target-networks-source]')).toBe('not set');
    expect(await text(page, '[data-testid=target-networks-empty]')).toMatch(/remote actions connect nowhere/);
    const save = page.locator('button:has-text("Save target networks")');
    await page.fill('#target-networks-input', '10.0.0.0/8\n0.0.0.0/0');
    expect(await text(page, '[data-testid=target-networks-invalid]')).toBe(
      '"0.0.0.0/0" would let remote actions connect to every address: list the networks of the managed hosts instead.',
    );
    expect(await save.isDisabled()).toBe(true);
    await page.fill('#target-networks-input', 'intranet');
    expect(await text(page, '[data-testid=target-networks-invalid]')).toMatch(/^"intranet" is not a network: write an address/);
    // The double listens on loopback: listed explicitly, as the rule asks.
    await page.fill('#target-networks-input', '10.0.0.0/8, 127.0.0.0/8');
    expect(await page.locator('[data-testid=target-networks-invalid]').count()).toBe(0);
    await save.click();
    await page.waitForSelector('.n-message:has-text("Target networks saved")');
    await page.reload();
    await page.waitForSelector('[data-testid=target-networks-form]');
    expect(await page.inputValue('#target-networks-input')).toBe('10.0.0.0/8\n127.0.0.0/8');
    expect(await text(page, '[data-testid=target-networks-source]')).toBe('set here');
    expect(await axeSerious(page)).toEqual([]);
  });

  it('settings: NTLM and a write-only password; a wrong one is refused with the WinRM reason on the host page', async () => {
    await page.goto(`${t.srv.url}/settings/remote-access`);
    await page.waitForSelector('[data-testid=winrm-form]');
    expect(await page.inputValue('#winrm-user-input')).toBe(WIN_USER);
    expect(await text(page, '[data-testid=winrm-password-state]')).toBe('not set');
    expect(await text(page, '[data-testid=winrm-auth]')).toBe('Basic');
    await chooseOption(page, '[data-testid=winrm-auth]', 'NTLM');
    await page.fill('#winrm-password-input', 'not-the-password');
    await page.click('button:has-text("Save Windows administrator")');
    await page.waitForFunction(
      () => document.querySelector('[data-testid=winrm-password-state]')?.textContent?.trim() === 'set here',
    );
    expect(await page.inputValue('#winrm-password-input')).toBe('');
    await page.reload();
    await page.waitForSelector('[data-testid=winrm-form]');
    expect(await page.content()).not.toContain('not-the-password');
    expect(await text(page, '[data-testid=winrm-auth]')).toBe('NTLM');
    // Plain HTTP is allowed here (the double speaks HTTP); switched off, the form says HTTP is refused.
    const plain = page.locator('[data-testid=winrm-allow-unencrypted]');
    expect(await plain.getAttribute('aria-checked')).toBe('true');
    expect(await page.locator('[data-testid=winrm-http-refused]').count()).toBe(0);
    await plain.click();
    await page.waitForSelector('[data-testid=winrm-http-refused]');
    await plain.click();
    await page.waitForSelector('[data-testid=winrm-http-refused]', { state: 'detached' });
    await screenshots(page, '20-remote-access');
    expect(await axeSerious(page)).toEqual([]);

    await page.goto(`${t.srv.url}/hosts/${winHost}`);
    await page.click('button:has-text("Test WinRM")');
    const refused = await outcome(page, 'winrm-test');
    expect(refused.status).toBe('failed');
    expect(refused.error).toMatch(/authentication refused \(HTTP 401\) for CORP\\svc-watchpost/);
    expect(win.authLog).toEqual(['challenge', 'refused: wrong password']);

    await page.goto(`${t.srv.url}/settings/remote-access`);
    await page.waitForSelector('[data-testid=winrm-form]');
    await page.fill('#winrm-password-input', WIN_PASSWORD);
    await page.click('button:has-text("Save Windows administrator")');
    await page.waitForSelector('.n-message:has-text("Windows administrator saved")');
  });

  it('host page: WinRM test, sessions, log-off of one session, the record of each action', async () => {
    resetSessions();
    await page.goto(`${t.srv.url}/hosts/${winHost}`);
    await page.click('button:has-text("Test WinRM")');
    const test = await outcome(page, 'winrm-test');
    expect(test).toMatchObject({ status: 'succeeded', transport: 'over WinRM', error: '' });
    expect(test.result).toContain(`WinRM works: ${win.hostname} answered at`);
    expect(win.authLog.at(-1)).toBe('authenticated CORP\\svc-watchpost');

    await page.click('button:has-text("List sessions")');
    await page.waitForSelector('[data-testid=sessions-table] tr[data-session-id="3"]');
    expect(await text(page, '[data-testid=sessions-table]')).toMatch(/2 rdp-tcp#12 alice Active.*3 — bob Disc/);
    await page.click('button[aria-label="Log off session 3 (bob)"]');
    await confirmDialog(page, 'Log off');
    expect(await outcome(page, 'logoff')).toEqual({
      status: 'succeeded',
      transport: 'over WinRM',
      result: 'Session 3 logged off.',
      error: '',
    });
    // The list is read again after the log-off.
    await page.waitForFunction(() => !document.querySelector('[data-testid=sessions-table] tr[data-session-id="3"]'));
    expect(win.sessions.map((s) => s.username)).not.toContain('bob');
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=recent-actions]')?.textContent?.includes('winrm.logoff'),
    );
    expect(await text(page, '[data-testid=recent-actions]')).toMatch(/succeeded winrm\.sessions over WinRM ada/);
    await screenshots(page, '21-host-actions');
    expect(await axeSerious(page)).toEqual([]);
  });

  it('host page: a failed SSH check shows its reason; the agent update is done when the agent reports the $ScriptVersion version', async () => {
    await page.goto(`${t.srv.url}/hosts/${linuxHost}`);
    await page.click('button:has-text("Check SSH admin")');
    const ssh = await outcome(page, 'ssh-check');
    expect(ssh.status).toBe('failed');
    expect(ssh.error.length).toBeGreaterThan(5);
    const failed = await t.srv.h.stores.pg.query<{ error: string }>(
      `SELECT error FROM actions WHERE kind = 'ssh.check' ORDER BY id DESC LIMIT 1`,
    );
    expect(ssh.error).toBe(failed.rows[0]!.error.replace(/\s+/g, ' ').trim());

    // Windows update: the repository's $ScriptVersion names the version; the agent's own deploy script
    // installs it and the agent reports it (deployLikeWindows).
    await page.goto(`${t.srv.url}/settings/remote-access`);
    await page.waitForSelector('[data-testid=repo-windows]');
    await page.fill('#repo-windows-url', repo.url);
    await page.fill('#repo-windows-branch', 'main');
    await page.locator('[data-testid=repo-windows] button:has-text("Save")').click();
    await page.waitForSelector('.n-message:has-text("Agent updates (windows) saved")');
    win.onPowerShell = deployLikeWindows;
    // Once the worker has read the branch head's version, the host is outdated.
    await expect
      .poll(
        async () => {
          await page.goto(`${t.srv.url}/hosts/${winHost}`);
          await page.waitForSelector('dt:text-is("Agent") + dd');
          return text(page, 'dt:text-is("Agent") + dd');
        },
        { timeout: 15_000, interval: 500 },
      )
      .toBe(`rdp-login-monitor ${AGENT_FROM} outdated (latest ${AGENT_TO})`);
    await page.click('button:has-text("Update agent")');
    const ask = page.locator('.n-dialog', { hasText: 'Update the agent on win-01?' });
    await ask.waitFor();
    expect((await ask.innerText()).replace(/\s+/g, ' ')).toContain(
      `The agent (rdp-login-monitor ${AGENT_FROM}) is updated now over WinRM to the configured branch (latest release ${AGENT_TO}).`,
    );
    await confirmDialog(page, 'Update agent');
    const update = await outcome(page, 'agent-update');
    // `transport` belongs to the winrm.* kinds only (api/ACTIONS.md): none shown for agent.update.
    expect(update).toMatchObject({ status: 'succeeded', transport: '', error: '' });
    expect(update.result).toBe(`Agent windows now at version ${AGENT_TO} (was ${AGENT_FROM})`);
    // The version is the agent's own report (correlate), and what the bundle built from the head holds.
    const done = await t.srv.h.stores.pg.query<{ product_version: string }>('SELECT product_version FROM hosts WHERE id = $1', [
      winHost,
    ]);
    expect(done.rows[0]!.product_version).toBe(AGENT_TO);
    const bundles = await t.srv.h.stores.pg.query('SELECT version FROM agent_bundles');
    expect(bundles.rows).toEqual([{ version: AGENT_TO }]);
    await page.reload();
    await page.waitForSelector('dt:text-is("Agent") + dd');
    expect(await text(page, 'dt:text-is("Agent") + dd')).toBe(`rdp-login-monitor ${AGENT_TO}`);
  });

  it('settings: "Test git connection" tests the unsaved form values; hosts older than the latest version are flagged outdated', async () => {
    await t.srv.h.stores.pg.query(`UPDATE hosts SET product_version = $2 WHERE id = $1`, [winHost, AGENT_FROM]);
    await page.goto(`${t.srv.url}/settings/remote-access`);
    await page.waitForSelector('[data-testid=repo-linux]');
    await page.fill('#repo-linux-url', `${repo.url}-missing`);
    await page.locator('[data-testid=repo-linux] button:has-text("Test git connection")').click();
    const missing = await outcome(page, 'git-test-linux');
    expect(missing.status).toBe('failed');
    expect(missing.error).toMatch(/agent\.git-missing/);
    await page.fill('#repo-linux-url', repo.url);
    await page.locator('[data-testid=repo-linux] button:has-text("Test git connection")').click();
    const found = await outcome(page, 'git-test-linux');
    expect(found).toMatchObject({ status: 'succeeded', error: '' });
    // The branch head's $ScriptVersion (what the agent reports), not a tag: the agent's repository has none.
    expect(found.result).toBe(`Repository reachable; branch found; latest release ${AGENT_TO} from Login_Monitor.ps1 (0 tags)`);
    // Nothing was saved by the test.
    const r = await t.srv.h.stores.pg.query<{ value: { linux?: unknown } }>(
      `SELECT value FROM settings WHERE key = 'actions.agent_update'`,
    );
    expect(r.rows[0]?.value.linux).toBeUndefined();
    await screenshots(page, '22-remote-access-git');

    // The windows repository saved in the previous test: the worker reads version.txt at its branch head.
    await expect
      .poll(
        async () => {
          await page.reload();
          await page.waitForSelector('[data-testid=repo-windows-latest]');
          return text(page, '[data-testid=repo-windows-latest]');
        },
        { timeout: 15_000, interval: 500 },
      )
      .toMatch(new RegExp(`^${AGENT_TO.replace(/\./g, '\\.')} read `));
    await page.goto(`${t.srv.url}/hosts?search=win-01`);
    await page.waitForSelector('.n-data-table-tbody tr .badge.outdated');
    await page.goto(`${t.srv.url}/hosts/${winHost}`);
    await page.waitForSelector('[data-testid=host-outdated]');
    expect(await text(page, '[data-testid=host-outdated]')).toBe(`outdated (latest ${AGENT_TO})`);
  });

  it('event page: terminate the session of an rdp.login.success user', async () => {
    resetSessions();
    await page.goto(`${t.srv.url}/events/${ev.rdp}`);
    // Where the event came from (issue 33): the host's own bound agent, so its session actions are offered.
    await page.waitForSelector('[data-testid=provenance]');
    expect(await text(page, '[data-testid=provenance]')).toMatch(/agent key #21: posted by the agent host win-01 is bound to/);
    expect(await page.$('[data-testid=provenance-refusal]')).toBeNull();
    await page.click('button:has-text("Terminate session of CORP\\\\alice")');
    await confirmDialog(page, 'Terminate');
    expect(await outcome(page, 'terminate')).toEqual({
      status: 'succeeded',
      transport: 'over WinRM',
      result: 'Logged off session(s): 2',
      error: '',
    });
    expect(win.sessions.map((s) => s.username)).not.toContain('alice');
    await screenshots(page, '23-event-terminate');
    expect(await axeSerious(page)).toEqual([]);
  });

  it('gateway event: a monitor lists the sessions behind the gateway and logs off the event user', async () => {
    resetSessions();
    win.sessions.push({ session_name: 'rdp-tcp#13', username: 'bob', id: 4, state: 'Active' });
    const p = await t.openPage(DESKTOP, MONA);
    await p.goto(`${t.srv.url}/events/${ev.gateway}`);
    await p.click('button:has-text("Sessions on the target host")');
    await p.waitForSelector('[data-testid=gateway-sessions-result] tr[data-session-id="2"]');
    expect(await text(p, '[data-testid=gateway-sessions-result]')).toMatch(/Host win-01.*alice/);
    // A monitor may end the event user's (bob's) sessions only: no button on alice's or the console.
    expect(await p.locator('button[aria-label="Log off session 2 (alice)"]').count()).toBe(0);
    expect(await p.locator('button[aria-label="Log off session 1 (Administrator)"]').count()).toBe(0);
    await p.click('button[aria-label="Log off session 3 (bob)"]');
    await confirmDialog(p, 'Log off');
    expect(await outcome(p, 'gateway-logoff')).toEqual({
      status: 'succeeded',
      transport: 'over WinRM',
      result: 'Logged off session(s): 3',
      error: '',
    });
    await p.waitForFunction(() => !document.querySelector('[data-testid=gateway-sessions-result] tr[data-session-id="3"]'));
    // The event user's remaining sessions in one go.
    await p.click('button:has-text("Log off CORP\\\\bob on the target host")');
    await confirmDialog(p, 'Log off');
    await p.waitForFunction(() =>
      document.querySelector('[data-testid=gateway-logoff-result]')?.textContent?.includes('Logged off session(s): 4'),
    );
    expect(win.sessions.map((s) => s.username)).toEqual(['', 'Administrator', 'alice']);
    // A monitor gets no RDP terminate button (admins only).
    await p.goto(`${t.srv.url}/events/${ev.rdp}`);
    await p.waitForSelector('h1');
    expect(await p.locator('button:has-text("Terminate session")').count()).toBe(0);
    await screenshots(p, '24-gateway-monitor');
    expect(await axeSerious(p)).toEqual([]);
    await p.context().close();
    expect(pageErrors).toEqual([]);
  });
});
