// Windows agent update end to end, through the agent's own deploy path: API -> actions worker (builds the
// bundle from a local bare repository shaped like rdp-login-monitor 2.1.7-SAC: version.txt, no tags,
// Deploy-LoginMonitor.ps1 without a BOM; signs a short-lived link) -> WinRM (WS-Man double) runs the
// PowerShell script. The double plays Windows: it downloads the bundle from the service over real HTTP,
// checks the hash, unpacks it into a staging folder, "runs" Deploy-LoginMonitor.ps1 -SourceShareRoot
// <staging> (reads version.txt as Read-VersionLineFromFile does, writes deployed_version.txt) and the
// restarted agent reports its $ScriptVersion in an agent.lifecycle event (Login_Monitor.ps1
// -SendDeploySacNotice), applied by the real correlator. The action is done when that report lands.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { BUNDLE_URL_TTL_SECONDS, loadSecretsKey, signedBundleUrl } from '@watchpost/core';
import { envelope } from '@watchpost/testkit/correlate';
import { freePort } from '@watchpost/testkit';
import {
  createRdpAgentRepo,
  createTestGitRepo,
  monitorStarts,
  rdpAgentFiles,
  settingsAfterDeploy,
  startRemoteActionScenario,
  startWsmanDouble,
  type RemoteActionScenario,
  type TestGitRepo,
  type WsmanDouble,
} from '@watchpost/testkit/actions';
import { processBatch } from '../index.ts'; // the package entry: role folders import none of each other
import { SETTINGS_EXAMPLE } from './bundle.ts';

let s: RemoteActionScenario;
let win: WsmanDouble;
let repo: TestGitRepo;
let hostId: number;
let port: number;
const scripts: string[] = [];
const downloads: { status: number; url: string }[] = [];
/** What the last "Windows" run unpacked into its staging folder. */
let staged = new Map<string, Buffer>();
/** deployed_version.txt on the "host" (Deploy-LoginMonitor.ps1 $VersionStampPath). */
let deployedStamp = '2.1.7-SAC';
/**
 * The host's login_monitor.settings.ps1: its key from an expression the deploy cannot read as a 'sac_…'
 * literal (Deploy-LoginMonitor.ps1 then takes the SAC block for missing and would replace it with the
 * example's, if the bundle carried one).
 */
const HOST_SETTINGS = [
  "$TelegramBotToken = ''",
  "$UseSAC = 'exclusive'",
  "$SacUrl = 'https://watchpost.corp.example'",
  "$SacApiKey = [Environment]::GetEnvironmentVariable('SAC_API_KEY', 'Machine')",
  '',
].join('\r\n');
let hostSettings: string | undefined = HOST_SETTINGS;

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Every API request of this file is the admin's. */
const call = (method: 'GET' | 'POST' | 'PUT', path: string, payload?: object) => s.call(method, path, s.admin, payload);

async function until<T>(f: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const hostRow = async () =>
  (await call('GET', '/hosts?search=win-upd')).body.items.find((x: { hostname: string }) => x.hostname === 'win-upd');

/** Every file of a zip (stored or deflated, local headers), as Expand-Archive would unpack it. */
function unzip(zip: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  let at = 0;
  while (at + 30 <= zip.length && zip.readUInt32LE(at) === 0x04034b50) {
    const flags = zip.readUInt16LE(at + 6);
    const method = zip.readUInt16LE(at + 8);
    const size = zip.readUInt32LE(at + 18);
    const nameLen = zip.readUInt16LE(at + 26);
    const start = at + 30 + nameLen + zip.readUInt16LE(at + 28);
    if (flags & 0x08) throw new Error('data descriptors are not supported here');
    const name = zip.subarray(at + 30, at + 30 + nameLen).toString('utf8');
    const data = zip.subarray(start, start + size);
    if (!name.endsWith('/')) files.set(name, method === 0 ? Buffer.from(data) : inflateRawSync(data));
    at = start + size;
  }
  return files;
}

/** The agent reports its version after the deploy (Login_Monitor.ps1 -SendDeploySacNotice: agent.lifecycle). */
async function agentReports(version: string) {
  const env = envelope({
    host: 'win-upd',
    type: 'agent.lifecycle',
    severity: 'info',
    title: `RDP agent updated to ${version}`,
    details: { lifecycle: 'updated', trigger: 'deploy', version },
    receivedAt: new Date(),
    osFamily: 'windows',
    instance: 'agent-win-upd',
    ipv4: '127.0.0.1',
  });
  env.event.source.product_version = version;
  await processBatch(
    s.h.stores.pg,
    [env],
    { problemCorrelationWindowMinutes: 60, problemMinSeverity: 'warning' },
    () => new Date(),
  );
}

/**
 * What Windows does with the script: download $url, compare its SHA-256 (Get-FileHash), unpack to the
 * staging folder, run Deploy-LoginMonitor.ps1 -SourceShareRoot <staging>, print what the script prints.
 */
function likeWindows(opts: { report: boolean; install: boolean }) {
  return async (script: string) => {
    scripts.push(script);
    const m = /^\$url = '((?:[^']|'')*)'$/m.exec(script);
    const want = /^\$sha256 = '([0-9a-f]{64})'$/m.exec(script)?.[1];
    if (!m || !want) return { stdout: '', stderr: 'no $url or $sha256', exitCode: 1 };
    if (!script.includes('(Get-FileHash -Algorithm SHA256 -LiteralPath $zip).Hash -ne $sha256'))
      return { stdout: '', stderr: 'the script does not check the hash', exitCode: 1 };
    const url = m[1]!.replace(/''/g, "'");
    const res = await fetch(url);
    downloads.push({ status: res.status, url });
    if (res.status !== 200)
      return { stdout: '', stderr: `Invoke-WebRequest : The remote server returned an error: (${res.status}).`, exitCode: 1 };
    const zip = Buffer.from(await res.arrayBuffer());
    if (createHash('sha256').update(zip).digest('hex') !== want)
      return { stdout: '', stderr: 'agent bundle SHA-256 mismatch: download refused', exitCode: 1 };
    staged = unzip(zip);
    // Deploy-LoginMonitor.ps1: version.txt and Login_Monitor.ps1 in the source folder, else it stops.
    const shareVer = staged
      .get('version.txt')
      ?.toString('utf8')
      .split(/\r?\n/)
      .find((l) => /\S/.test(l))
      ?.trim();
    if (!shareVer || !staged.has('Login_Monitor.ps1')) return { stdout: 'WATCHPOST-DEPLOY-EXIT=0\r\n', exitCode: 0 };
    const log = [`Deploy: корень дистрибутива: C:\\ProgramData\\watchpost-agent\\staging-x`];
    if (opts.install) {
      // The deploy's rules on the host's settings (testkit deploy-rules.ts), with what the bundle holds.
      const example = staged.get('login_monitor.settings.example.ps1')?.toString('utf8');
      hostSettings = settingsAfterDeploy(hostSettings, example, shareVer !== deployedStamp);
      deployedStamp = shareVer;
      log.push(`Записана метка версии: C:\\ProgramData\\RDP-login-monitor\\deployed_version.txt`);
    } else log.push('ОШИБКА: запустите Deploy из повышенной консоли PowerShell');
    // The restarted monitor gets past its start only with a key (Login_Monitor.ps1 exits 1 otherwise).
    if (opts.install && opts.report && monitorStarts(hostSettings).starts) {
      // The restarted monitor states its $ScriptVersion (Login_Monitor.ps1 as unpacked).
      const sv = /\$ScriptVersion = "([^"]+)"/.exec(staged.get('Login_Monitor.ps1')!.toString('utf8'))![1]!;
      await agentReports(sv);
    }
    return {
      stdout: [
        `WATCHPOST-DEPLOY-EXIT=0`,
        `WATCHPOST-DEPLOYED=${deployedStamp}`,
        ...log.map((l) => `WATCHPOST-LOG ${l}`),
        '',
      ].join('\r\n'),
      exitCode: 0,
    };
  };
}

beforeAll(async () => {
  // HTTPS: the double's certificate is the one an admin accepted for the host (issues 21, 33).
  win = await startWsmanDouble({ username: 'Administrator', password: 'secret-1', tls: true });
  repo = createRdpAgentRepo('2.1.7-SAC');
  port = await freePort();
  s = await startRemoteActionScenario('actions_winupdate', {
    winrm: { double: win, username: 'Administrator', password: 'secret-1' },
    monitor: false,
    env: {
      SERVICE_PUBLIC_URL: `http://127.0.0.1:${port}`,
      SERVICE_AGENT_UPDATE_ALLOW_FILE_URLS: 'true',
      // a fifth of it (5 s) is how long the update waits for the agent's report
      SERVICE_AGENT_UPDATE_TIMEOUT_MS: '25000',
    },
  });
  await s.h.app.listen({ host: '127.0.0.1', port });
  hostId = await s.windowsHost('win-upd', {
    version: '2.1.7-SAC',
    agentInstanceId: 'agent-win-upd',
    winrmCertSha256: win.certSha256, // accepted by an admin (issue 33)
  });
  win.onPowerShell = likeWindows({ report: true, install: true });
});

afterAll(async () => {
  await s?.close();
  await win?.close();
  repo?.close();
});

describe('latest version from version.txt', () => {
  it('a host at 2.1.7-SAC is current while version.txt says 2.1.7-SAC, outdated once it says 2.1.8-SAC', async () => {
    expect((await call('PUT', '/settings/agent-updates', { windows: { git_url: repo.url, branch: 'main' } })).status).toBe(200);
    const s = await until(
      () => call('GET', '/settings/agent-updates'),
      (r) => r.body.windows.latest_version === '2.1.7-SAC',
    );
    expect(s.body.windows).toMatchObject({ latest_version: '2.1.7-SAC', error: null });
    expect(await hostRow()).toMatchObject({ agent_version: '2.1.7-SAC', latest_version: '2.1.7-SAC', outdated: false });

    repo.commit({ 'version.txt': '2.1.8-SAC\n', 'Login_Monitor.ps1': rdpAgentFiles('2.1.8-SAC')['Login_Monitor.ps1']! });
    await call('PUT', '/settings/agent-updates', { windows: { git_url: repo.url } });
    await until(
      () => call('GET', '/settings/agent-updates'),
      (r) => r.body.windows.latest_version === '2.1.8-SAC',
    );
    expect(await hostRow()).toMatchObject({ latest_version: '2.1.8-SAC', outdated: true });
  });
});

describe('Windows agent update over WinRM through Deploy-LoginMonitor.ps1', () => {
  it('unpacks the bundle to a staging folder, runs Deploy-LoginMonitor.ps1 -SourceShareRoot there; done when the agent reports', async () => {
    const r = await call('POST', `/hosts/${hostId}/actions/agent-update?wait=true`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.result).toEqual({
      agent: 'windows',
      version: '2.1.8-SAC',
      previous_version: '2.1.7-SAC',
      deployed_version: '2.1.8-SAC',
      version_source: 'Login_Monitor.ps1',
      commit: expect.stringMatching(/^[0-9a-f]{40}$/),
      git_url: repo.url,
      branch: 'main',
    });
    expect(downloads).toHaveLength(1);
    expect(downloads[0]!.url).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:${port}/api/v1/agent-bundles/\\d+\\.zip\\?expires=\\d+&sig=`),
    );

    // The command WinRM ran: the script, encoded, in Windows PowerShell without profiles.
    const cmd = win.requests.filter((q) => q.command).at(-1)!.command!;
    expect(cmd.command).toBe('powershell.exe');
    expect(cmd.args.slice(0, 5)).toEqual(['-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-EncodedCommand']);
    expect(Buffer.from(cmd.args[5]!, 'base64').toString('utf16le')).toBe(scripts[0]);
    // A fresh staging folder, the bundle unpacked into it, the agent's deploy script run on it.
    const script = scripts[0]!;
    expect(script).toMatch(/^\$staging = Join-Path \$root \('staging-' \+ \[guid\]::NewGuid\(\)\.ToString\('N'\)\)$/m);
    expect(script).toContain('Expand-Archive -LiteralPath $zip -DestinationPath $staging -Force');
    expect(script).toContain("$deploy = Join-Path $staging 'Deploy-LoginMonitor.ps1'");
    expect(script).toMatch(
      /^ {2}& \$ps -NoProfile -NonInteractive -ExecutionPolicy Bypass -File \$deploy -SourceShareRoot \$staging \| Out-Null$/m,
    );
    expect(script).not.toMatch(/AllowDowngrade|WhatIf|SkipStartMonitorAfterUpdate|install\.ps1/);
    expect(script).toContain('Remove-Item -LiteralPath $staging -Recurse -Force');

    // The bundle: the repository at 2.1.8-SAC, every .ps1 with exactly one UTF-8 BOM, other files as they
    // are, and no settings example (the deploy would replace the host's SAC settings with it).
    const files = rdpAgentFiles('2.1.8-SAC');
    expect(files).toHaveProperty([SETTINGS_EXAMPLE]);
    expect([...staged.keys()].sort()).toEqual(
      Object.keys(files)
        .filter((f) => f !== SETTINGS_EXAMPLE)
        .sort(),
    );
    for (const [name, content] of staged) {
      const original = Buffer.from(files[name]!);
      if (name.endsWith('.ps1')) {
        expect(content.subarray(0, 3).equals(BOM), name).toBe(true);
        expect(content.subarray(3, 6).equals(BOM), name).toBe(false);
        expect(Buffer.concat([BOM, original.subarray(original.subarray(0, 3).equals(BOM) ? 3 : 0)]).equals(content), name).toBe(
          true,
        );
      } else expect(content.equals(original), name).toBe(true);
    }
    expect(staged.get('version.txt')!.toString()).toBe('2.1.8-SAC\n');
    // The deploy left the host's SAC block alone (only $UseSAC forced to fallback on the upgrade): it starts.
    expect(hostSettings).toContain("$SacApiKey = [Environment]::GetEnvironmentVariable('SAC_API_KEY', 'Machine')");
    expect(hostSettings).toContain("$UseSAC = 'fallback'");
    expect(monitorStarts(hostSettings)).toEqual({ starts: true, why: 'UseSAC=fallback' });

    // The version comes from the agent's own event (correlate), not from the action.
    const host = await s.h.stores.pg.query('SELECT product_version FROM hosts WHERE id = $1', [hostId]);
    expect(host.rows[0].product_version).toBe('2.1.8-SAC');
    expect(await hostRow()).toMatchObject({ agent_version: '2.1.8-SAC', outdated: false });
    const bundles = await s.h.stores.pg.query('SELECT version, source FROM agent_bundles');
    expect(bundles.rows).toEqual([{ version: '2.1.8-SAC', source: 'Login_Monitor.ps1' }]);
  });

  it('a second update of the same commit reuses the bundle', async () => {
    const r = await call('POST', `/hosts/${hostId}/actions/agent-update?wait=true`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.result.previous_version).toBe('2.1.8-SAC');
    expect((await s.h.stores.pg.query('SELECT count(*)::int AS n FROM agent_bundles')).rows[0].n).toBe(1);
  });

  it('a deploy that installed nothing fails with its log; the host keeps its version', async () => {
    await s.h.stores.pg.query(`UPDATE hosts SET product_version = '2.1.7-SAC' WHERE id = $1`, [hostId]);
    deployedStamp = '2.1.7-SAC';
    win.onPowerShell = likeWindows({ report: true, install: false });
    const r = await call('POST', `/hosts/${hostId}/actions/agent-update?wait=true`);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(
      /Deploy-LoginMonitor\.ps1 did not install 2\.1\.8-SAC \(deployed_version\.txt: 2\.1\.7-SAC\); deploy\.log: .*повышенной консоли/,
    );
    const host = await s.h.stores.pg.query('SELECT product_version FROM hosts WHERE id = $1', [hostId]);
    expect(host.rows[0].product_version).toBe('2.1.7-SAC');
  });

  it('installed but never reported by the agent: not done, and the host keeps the version the agent reports', async () => {
    win.onPowerShell = likeWindows({ report: false, install: true });
    const started = Date.now();
    const r = await call('POST', `/hosts/${hostId}/actions/agent-update?wait=true`);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(
      /2\.1\.8-SAC is installed \(deployed_version\.txt\), but the agent has not reported 2\.1\.8-SAC within 5 s \(its last reported version is 2\.1\.7-SAC\)/,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(5000);
    const host = await s.h.stores.pg.query('SELECT product_version FROM hosts WHERE id = $1', [hostId]);
    expect(host.rows[0].product_version).toBe('2.1.7-SAC');
    // Nothing from the host since the deploy: a high problem names the host and the likely cause, and pages.
    const problems = await s.h.stores.pg.query(
      `SELECT id::text, host, severity, title, details FROM problems WHERE type = 'agent_update_stalled' AND status = 'open'`,
    );
    expect(problems.rows).toEqual([
      {
        id: expect.any(String),
        host: 'win-upd',
        severity: 'high',
        title: 'win-upd: no event from the agent since its update to 2.1.8-SAC',
        details: expect.objectContaining({
          version: '2.1.8-SAC',
          deployed_version: '2.1.8-SAC',
          silent_since_deploy: true,
          likely_cause: expect.stringMatching(/the monitor does not start after the deploy: .*quoted 'sac_…' literal/),
        }),
      },
    ]);
    expect(r.body.error.message).toContain(`problem ${problems.rows[0].id} names the likely cause`);
    const paged = await s.h.stores.pg.query(`SELECT kind FROM problem_outbox WHERE problem_id = $1`, [problems.rows[0].id]);
    expect(paged.rows).toEqual([{ kind: 'problem.opened' }]);
  });

  it('a host newer than the bundle is not downgraded', async () => {
    deployedStamp = '2.2.0-SAC';
    win.onPowerShell = likeWindows({ report: true, install: false });
    const r = await call('POST', `/hosts/${hostId}/actions/agent-update?wait=true`);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(
      /the host has 2\.2\.0-SAC, newer than 2\.1\.8-SAC: the deploy script does not downgrade/,
    );
    win.onPowerShell = likeWindows({ report: true, install: true });
  });

  it('the link is refused when altered, for another bundle or once expired', async () => {
    const u = new URL(downloads[0]!.url);
    const id = /\/(\d+)\.zip$/.exec(u.pathname)![1];
    const get = (path: string) => s.h.app.inject({ method: 'GET', url: path });
    expect((await get(`${u.pathname}${u.search}`)).statusCode).toBe(200);
    const sig = u.searchParams.get('sig')!;
    const flipped = sig.slice(0, -1) + (sig.endsWith('A') ? 'B' : 'A');
    expect((await get(`${u.pathname}?expires=${u.searchParams.get('expires')}&sig=${flipped}`)).statusCode).toBe(403);
    expect((await get(`${u.pathname}?expires=${Number(u.searchParams.get('expires')) + 60}&sig=${sig}`)).statusCode).toBe(403);
    expect((await get(`/api/v1/agent-bundles/${Number(id) + 1}.zip${u.search}`)).statusCode).toBe(403);
    expect((await get(`${u.pathname}`)).statusCode).toBe(400);
    // a genuine link, signed by the service, stops working after its lifetime
    const key = await loadSecretsKey(s.h.config.actions.secretsKey, s.h.config.stateDir);
    const stale = new URL(
      signedBundleUrl(key, `http://127.0.0.1:${port}`, Number(id), Date.now() - (BUNDLE_URL_TTL_SECONDS + 5) * 1000),
    );
    const fresh = new URL(signedBundleUrl(key, `http://127.0.0.1:${port}`, Number(id)));
    expect((await get(`${fresh.pathname}${fresh.search}`)).statusCode).toBe(200);
    expect((await get(`${stale.pathname}${stale.search}`)).statusCode).toBe(403);
  });

  it('a bundle altered on the way fails the hash check on the host: a 400, nothing installed', async () => {
    await s.h.stores.pg.query(`UPDATE hosts SET product_version = '2.1.7-SAC' WHERE id = $1`, [hostId]);
    const before = scripts.length;
    // What the host receives differs from what the service hashed (a proxy or attacker on plain HTTP).
    await s.h.stores.pg.query("UPDATE agent_bundles SET zip = zip || '\\x00'::bytea");
    const r = await call('POST', `/hosts/${hostId}/actions/agent-update?wait=true`);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/SHA-256 mismatch/);
    expect(scripts.length).toBe(before + 1);
    const after = await s.h.stores.pg.query('SELECT product_version FROM hosts WHERE id = $1', [hostId]);
    expect(after.rows[0].product_version).toBe('2.1.7-SAC');
  });

  it('a failing script is a 400 with the PowerShell error', async () => {
    win.onPowerShell = async () => ({ stdout: '', stderr: 'Expand-Archive : The archive file is corrupt.', exitCode: 1 });
    const r = await call('POST', `/hosts/${hostId}/actions/agent-update?wait=true`);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(
      /the agent update failed with exit code 1: Expand-Archive : The archive file is corrupt/,
    );
  });

  it('a repository without Deploy-LoginMonitor.ps1 is refused before anything reaches the host', async () => {
    const other = createTestGitRepo();
    try {
      other.commit({ 'version.txt': '9.0.0\n', 'install.ps1': 'Write-Output installed\r\n' });
      expect((await call('PUT', '/settings/agent-updates', { windows: { git_url: other.url, branch: 'main' } })).status).toBe(
        200,
      );
      const before = scripts.length;
      const r = await call('POST', `/hosts/${hostId}/actions/agent-update?wait=true`);
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(/has no Deploy-LoginMonitor\.ps1 at its root: not an rdp-login-monitor repository/);
      expect(scripts.length).toBe(before);
    } finally {
      other.close();
    }
  });
});
