// Windows agent update end to end: API -> actions worker (builds the zip bundle from a local bare git
// repository, signs a short-lived link) -> WinRM (WS-Man double) runs the PowerShell script, which
// downloads the bundle from the service over real HTTP, "installs" it and prints its VERSION -> the
// version read back lands in the action and the host.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { BUNDLE_URL_TTL_SECONDS, loadSecretsKey, signedBundleUrl } from '@watchpost/core';
import { addUser, createApiHarness, login, type ApiHarness } from '@watchpost/testkit/api';
import {
  createTestGitRepo,
  insertHost,
  readZipEntry,
  startActionsWorker,
  startWsmanDouble,
  wsmanDoubleEnv,
  type TestGitRepo,
  type WsmanDouble,
} from '@watchpost/testkit/actions';

let h: ApiHarness;
let win: WsmanDouble;
let repo: TestGitRepo;
let worker: Awaited<ReturnType<typeof startActionsWorker>>;
let admin: string;
let hostId: number;
let port: number;
const scripts: string[] = [];
const downloads: { status: number; url: string }[] = [];

async function call(method: 'GET' | 'POST' | 'PUT', path: string, payload?: object) {
  const r = await h.app.inject({ method, url: `/api/v1${path}`, headers: { authorization: `Bearer ${admin}` }, payload });
  return { status: r.statusCode, body: r.json() };
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });

beforeAll(async () => {
  // HTTPS: the admin's first update pins the double's certificate (issue 21).
  win = await startWsmanDouble({ username: 'Administrator', password: 'secret-1', tls: true });
  repo = createTestGitRepo();
  repo.commit({ 'install.ps1': 'Write-Output installed\r\n' }, { tag: 'v5.0.0' });
  repo.commit({ 'install.ps1': 'Write-Output installed 5.1\r\n' }, { tag: 'v5.1.0' });
  port = await freePort();
  h = await createApiHarness('actions_winupdate', {
    env: {
      SERVICE_WINRM_USERNAME: 'Administrator',
      SERVICE_WINRM_PASSWORD: 'secret-1',
      ...wsmanDoubleEnv(win),
      SERVICE_ACTION_TARGET_NETWORKS: '127.0.0.0/8',
      SERVICE_SECRETS_KEY: randomBytes(32).toString('base64'),
      SERVICE_PUBLIC_URL: `http://127.0.0.1:${port}`,
      SERVICE_AGENT_UPDATE_ALLOW_FILE_URLS: 'true',
      SERVICE_AGENT_UPDATE_WINDOWS_GIT_URL: repo.url,
    },
  });
  await h.app.listen({ host: '127.0.0.1', port });
  worker = await startActionsWorker(h.config);
  await addUser(h, 'ada', 'admin');
  admin = (await login(h, 'ada', 'pw-ada-secret')).json().access_token;
  hostId = await insertHost(h.stores.pg, {
    hostname: 'win-upd',
    product: 'rdp-login-monitor',
    version: '4.9.0',
    address: '127.0.0.1',
  });
  win.onPowerShell = installLikeWindows;
});

// What Windows PowerShell would do with the script: download $url, compare its SHA-256 with $sha256
// (Get-FileHash), unpack, print VERSION.
async function installLikeWindows(script: string) {
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
  const version = readZipEntry(zip, 'VERSION')?.toString('utf8').trim();
  if (!readZipEntry(zip, 'install.ps1')) return { stdout: '', stderr: 'install.ps1 missing', exitCode: 1 };
  return { stdout: `installed\r\n${version}\r\n`, exitCode: 0 };
}

afterAll(async () => {
  await worker?.close();
  await h?.close();
  await win?.close();
  repo?.close();
});

describe('Windows agent update over WinRM', () => {
  it('the host downloads the bundle over a signed link; the version is read back', async () => {
    const r = await call('POST', `/hosts/${hostId}/actions/agent-update?wait=true`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.result).toEqual({ agent: 'windows', version: '5.1.0', git_url: repo.url, branch: 'main' });
    expect(downloads).toHaveLength(1);
    expect(downloads[0]!.status).toBe(200);
    expect(downloads[0]!.url).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:${port}/api/v1/agent-bundles/\\d+\\.zip\\?expires=\\d+&sig=`),
    );
    const cmd = win.requests.filter((q) => q.command).at(-1)!.command!;
    expect(cmd.command).toBe('powershell.exe');
    expect(cmd.args.slice(0, 5)).toEqual(['-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-EncodedCommand']);
    expect(scripts[0]).toContain('Expand-Archive -Path $zip -DestinationPath $new -Force');
    const host = await h.stores.pg.query('SELECT product_version FROM hosts WHERE id = $1', [hostId]);
    expect(host.rows[0].product_version).toBe('5.1.0');
    const bundles = await h.stores.pg.query('SELECT version, size FROM agent_bundles');
    expect(bundles.rows).toEqual([{ version: '5.1.0', size: expect.any(Number) }]);
  });

  it('a second update of the same commit reuses the bundle', async () => {
    const r = await call('POST', `/hosts/${hostId}/actions/agent-update?wait=true`);
    expect(r.status).toBe(200);
    expect((await h.stores.pg.query('SELECT count(*)::int AS n FROM agent_bundles')).rows[0].n).toBe(1);
  });

  it('the link is refused when altered, for another bundle or once expired', async () => {
    const u = new URL(downloads[0]!.url);
    const id = /\/(\d+)\.zip$/.exec(u.pathname)![1];
    const get = (path: string) => h.app.inject({ method: 'GET', url: path });
    expect((await get(`${u.pathname}${u.search}`)).statusCode).toBe(200);
    const sig = u.searchParams.get('sig')!;
    const flipped = sig.slice(0, -1) + (sig.endsWith('A') ? 'B' : 'A');
    expect((await get(`${u.pathname}?expires=${u.searchParams.get('expires')}&sig=${flipped}`)).statusCode).toBe(403);
    expect((await get(`${u.pathname}?expires=${Number(u.searchParams.get('expires')) + 60}&sig=${sig}`)).statusCode).toBe(403);
    expect((await get(`/api/v1/agent-bundles/${Number(id) + 1}.zip${u.search}`)).statusCode).toBe(403);
    expect((await get(`${u.pathname}`)).statusCode).toBe(400);
    // a genuine link, signed by the service, stops working after its lifetime
    const key = await loadSecretsKey(h.config.actions.secretsKey, h.config.stateDir);
    const stale = new URL(
      signedBundleUrl(key, `http://127.0.0.1:${port}`, Number(id), Date.now() - (BUNDLE_URL_TTL_SECONDS + 5) * 1000),
    );
    const fresh = new URL(signedBundleUrl(key, `http://127.0.0.1:${port}`, Number(id)));
    expect((await get(`${fresh.pathname}${fresh.search}`)).statusCode).toBe(200);
    expect((await get(`${stale.pathname}${stale.search}`)).statusCode).toBe(403);
  });

  it('a bundle altered on the way fails the hash check on the host: a 400, nothing installed', async () => {
    const before = await h.stores.pg.query('SELECT product_version FROM hosts WHERE id = $1', [hostId]);
    // What the host receives differs from what the service hashed (a proxy or attacker on plain HTTP).
    await h.stores.pg.query("UPDATE agent_bundles SET zip = zip || '\\x00'::bytea");
    const r = await call('POST', `/hosts/${hostId}/actions/agent-update?wait=true`);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/SHA-256 mismatch/);
    expect(downloads.at(-1)!.status).toBe(200);
    const after = await h.stores.pg.query('SELECT product_version FROM hosts WHERE id = $1', [hostId]);
    expect(after.rows[0].product_version).toBe(before.rows[0].product_version);
  });

  it('a failing install is a 400 with the PowerShell error', async () => {
    win.onPowerShell = async () => ({ stdout: '', stderr: 'Expand-Archive : The archive file is corrupt.', exitCode: 1 });
    const r = await call('POST', `/hosts/${hostId}/actions/agent-update?wait=true`);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(
      /the agent update failed with exit code 1: Expand-Archive : The archive file is corrupt/,
    );
  });
});
