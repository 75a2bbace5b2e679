// ops/caddy/Caddyfile, the one docker-compose runs, in front of the roles as separate processes (ingest,
// api, stream on their own ports, as compose runs them) with Debian's caddy, TLS from Caddy's own CA
// (`TLS_MODE=internal`, its root read from the data folder). Clients talk HTTPS to the proxy only, as an
// agent (events, a batch, the command poll) and a browser (login cookie, live stream, the UI) would,
// from 127.0.0.2 so the address the service records tells the client from the proxy (127.0.0.1).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import tls, { type TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '@watchpost/runtime';
import { createTestStores, freePort, rdpMonitor, testConfig, waitFor, windowsAgent, type TestStores } from '@watchpost/testkit';
import { SseClient } from '@watchpost/testkit/api';
import type { EventV1 } from '@watchpost/schemas';
import { ensureWebBuilt } from './web-e2e/server.ts';

const KEY = `sac_${randomBytes(24).toString('hex')}`;
const ADMIN_PASSWORD = 'caddy-admin-password-0123456789';
const CLIENT = '127.0.0.2'; // the client's own address; the proxy reaches the roles from 127.0.0.1
const FORGED = '203.0.113.9';
const CADDYFILE = join(repoRoot, 'ops/caddy/Caddyfile');

/**
 * Debian's caddy binary: the installed one, else the package unpacked under .stack/caddy (apt-get
 * download + dpkg-deb -x: no maintainer script runs, so no system service is enabled or started).
 */
function caddyBinary(): string {
  if (existsSync('/usr/bin/caddy')) return '/usr/bin/caddy';
  const dir = join(repoRoot, '.stack/caddy');
  const bin = join(dir, 'usr/bin/caddy');
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  const run = (cmd: string, args: string[]) => spawnSync(cmd, args, { cwd: dir, stdio: 'inherit' }).status === 0;
  if (!run('apt-get', ['download', '-q', 'caddy'])) {
    // a fresh machine has no package lists yet (needs root, as the stack's own installs)
    if (!run('apt-get', ['update', '-q']) || !run('apt-get', ['download', '-q', 'caddy']))
      throw new Error('cannot fetch Debian package caddy: run `apt-get install --no-install-recommends caddy`');
  }
  const deb = readdirSync(dir).find((f) => /^caddy_.*\.deb$/.test(f));
  if (!deb || !run('dpkg-deb', ['-x', deb, '.'])) throw new Error('cannot unpack the caddy package');
  return bin;
}

interface Proc {
  child: ChildProcess;
  output: () => string;
  exited: Promise<unknown>;
}

function start(cmd: string, args: string[], env: NodeJS.ProcessEnv): Proc {
  const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out = (out + d).slice(-20_000)));
  child.stderr!.on('data', (d) => (out = (out + d).slice(-20_000)));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return { child, output: () => out, exited };
}

async function stop(p: Proc | undefined): Promise<void> {
  if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGTERM');
  const t = setTimeout(() => p.child.kill('SIGKILL'), 15_000);
  await p.exited;
  clearTimeout(t);
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: () => any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

let stores: TestStores;
const roles: Record<string, Proc> = {};
let caddy: Proc | undefined;
let bin: string;
let work: string;
let ca: string;
let base: string;
const ports = { ingest: 0, api: 0, stream: 0, https: 0, http: 0 };

/** The server certificate `url` presents, verified against `ca` only. */
function peerCertificate(url: string, ca: string): Promise<X509Certificate> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { ca, agent: false }, (res) => {
      resolve(new X509Certificate((res.socket as TLSSocket).getPeerCertificate().raw));
      res.resume();
    });
    req.on('error', reject);
  });
}

/** One HTTPS request to the proxy, from CLIENT, trusting only Caddy's root certificate. */
function request(method: string, path: string, opts: { headers?: Record<string, string>; body?: string | Buffer } = {}) {
  return new Promise<Answer>((resolve, reject) => {
    const req = https.request(
      `${base}${path}`,
      { method, ca, localAddress: CLIENT, headers: opts.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** Plain HTTP straight to a role's own port, from CLIENT. */
function direct(port: number, method: string, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, localAddress: CLIENT, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json: () => JSON.parse(text) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Caddy on its own ports with the Caddyfile, the roles as upstreams and its state under `home`. */
function startCaddy(bin: string, home: string, httpsPort: number, httpPort: number, env: Record<string, string>): Proc {
  return start(bin, ['run', '--config', CADDYFILE, '--adapter', 'caddyfile'], {
    PATH: process.env.PATH,
    HOME: home,
    XDG_DATA_HOME: join(home, 'data'),
    XDG_CONFIG_HOME: join(home, 'config'),
    SITE_ADDRESS: `localhost:${httpsPort}`,
    HTTPS_PORT: String(httpsPort),
    HTTP_PORT: String(httpPort),
    CADDY_ADMIN: 'off',
    INGEST_UPSTREAM: `127.0.0.1:${ports.ingest}`,
    API_UPSTREAM: `127.0.0.1:${ports.api}`,
    ...env,
  });
}

const agentHeaders = (e: EventV1) => ({
  authorization: `Bearer ${KEY}`,
  'idempotency-key': e.event_id,
  'content-type': 'application/json',
});
const postEvent = (e: EventV1) => request('POST', '/api/v1/events', { headers: agentHeaders(e), body: JSON.stringify(e) });
const login = (extra: Record<string, string> = {}) =>
  request('POST', '/api/v1/auth/login', {
    headers: { 'content-type': 'application/json', ...extra },
    body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD, refresh_cookie: true }),
  });
/** The refresh cookie's `name=value` and attributes (the login may set a device cookie too). */
const refreshCookie = (setCookie: string[] | undefined) =>
  (setCookie ?? []).map((line) => line.split(';').map((p) => p.trim())).find((c) => c[0]!.startsWith('watchpost_refresh='))!;

beforeAll(async () => {
  ensureWebBuilt();
  bin = caddyBinary();
  stores = await createTestStores(testConfig('caddy'));
  const c = stores.config;
  for (const k of Object.keys(ports) as (keyof typeof ports)[]) ports[k] = await freePort();
  const env = {
    ...process.env,
    DATABASE_URL: c.databaseUrl,
    CLICKHOUSE_DATABASE: c.clickhouseDatabase,
    KAFKA_TOPIC_PREFIX: c.topicPrefix,
    SERVICE_STATE_DIR: c.stateDir,
    BULLMQ_PREFIX: c.queuePrefix,
    REDIS_KEY_PREFIX: c.redisKeyPrefix,
    SERVICE_BOOTSTRAP_API_KEY: KEY,
    SERVICE_ADMIN_PASSWORD: ADMIN_PASSWORD,
    SERVICE_TRUST_PROXY: '127.0.0.1', // the proxy's address, as compose sets it
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
  };
  for (const role of ['ingest', 'api', 'stream'] as const)
    roles[role] = start(
      process.execPath,
      ['--disable-warning=TimeoutNegativeWarning', join(repoRoot, 'ops/src/start.ts'), role],
      { ...env, PORT: String(ports[role]) },
    );
  for (const role of ['ingest', 'api', 'stream'] as const)
    await waitFor(
      `${role} role on its port`,
      () =>
        fetch(`http://127.0.0.1:${ports[role]}/health`).then(
          (r) => r.status,
          () => roles[role]!.output(),
        ),
      (s) => s === 200,
      90_000,
      250,
    );

  work = mkdtempSync(join(tmpdir(), 'watchpost-caddy-'));
  caddy = startCaddy(bin, join(work, 'internal'), ports.https, ports.http, { TLS_MODE: 'internal' });
  base = `https://localhost:${ports.https}`;
  // Caddy creates its CA and issues the site certificate just after it starts listening.
  const root = join(work, 'internal/data/caddy/pki/authorities/local/root.crt');
  await waitFor(
    'Caddy root certificate',
    async () => existsSync(root) || caddy!.output(),
    (v) => v === true,
    30_000,
    100,
  );
  ca = readFileSync(root, 'utf8');
  await waitFor(
    '/health through Caddy',
    () =>
      request('GET', '/health').then(
        (r) => r.status,
        (e: Error) => e.message,
      ),
    (s) => s === 200,
    30_000,
    200,
  );
}, 240_000);

afterAll(async () => {
  await stop(caddy);
  await Promise.all(Object.values(roles).map(stop));
  await stores?.drop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('ops/caddy/Caddyfile in front of the roles', () => {
  it('serves a certificate that chains to its CA only; plain HTTP redirects a browser to HTTPS and refuses an agent', async () => {
    const cert = await peerCertificate(`${base}/health`, ca);
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.issuer).toMatch(/Caddy Local Authority/);
    // Without Caddy's root the chain is refused: the test's trust is that root, nothing else.
    await expect(
      new Promise((resolve, reject) => https.get(`${base}/health`, { agent: false }, resolve).on('error', reject)),
    ).rejects.toThrow(/self.signed|unable to (get|verify)/i);
    const redirect = await direct(ports.http, 'GET', '/events?page=2', { host: 'localhost' });
    expect(redirect.status).toBe(308);
    // (Caddy 2.6 leaves a non-default HTTPS port out of the redirect; compose serves 443.)
    expect(redirect.headers.location).toMatch(/^https:\/\/localhost(:\d+)?\/events\?page=2$/);
    // The agents' routes: a clear refusal, never a redirect (the Windows agent's .NET client does not
    // follow one for a POST, and its key would have crossed the network in clear text already).
    for (const [method, path] of [
      ['POST', '/api/v1/events'],
      ['POST', '/api/v1/events/batch'],
      ['GET', '/api/v1/agent/commands'],
      ['GET', '/health'],
    ] as const) {
      const r = await direct(ports.http, method, path, { host: 'localhost' });
      expect([method, path, r.status, r.headers.location]).toEqual([method, path, 426, undefined]);
      expect(r.body).toMatch(/agents must use https:\/\/localhost\/ as their base URL/);
    }
  });

  it('serves a provided certificate pair (TLS_MODE=files) made with openssl, over the TLS 1.2 suites Windows Server offers', async () => {
    const dir = join(work, 'files');
    mkdirSync(dir);
    const openssl = (...args: string[]) => {
      const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`openssl ${args[0]}: ${r.stderr}`);
    };
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-subj', '/CN=watchpost test CA', '-days', '2');
    // An RSA site key, as most Windows fleets' certificates are.
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'key.pem', '-out', 'site.csr', '-subj', '/CN=localhost');
    writeFileSync(join(dir, 'san.ext'), 'subjectAltName=DNS:localhost\n');
    openssl(
      'x509',
      '-req',
      '-in',
      'site.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'cert.pem',
      '-days',
      '2',
      '-extfile',
      'san.ext',
    );
    const [httpsPort, httpPort] = [await freePort(), await freePort()];
    const p = startCaddy(bin, dir, httpsPort, httpPort, {
      TLS_MODE: 'files',
      TLS_CERT_FILE: join(dir, 'cert.pem'),
      TLS_KEY_FILE: join(dir, 'key.pem'),
    });
    try {
      const own = readFileSync(join(dir, 'ca.crt'), 'utf8');
      const cert = await waitFor(
        'the provided certificate',
        () => peerCertificate(`https://localhost:${httpsPort}/health`, own).catch((e: Error) => e.message + p.output()),
        (c) => c instanceof X509Certificate,
        30_000,
        200,
      );
      expect((cert as X509Certificate).issuer).toBe('CN=watchpost test CA');
      expect((cert as X509Certificate).checkHost('localhost')).toBe('localhost');
      // The Windows agent pins TLS 1.2 (Sac-Client.ps1). The suites AGENTS.md names are served; the
      // CBC ones an unpatched Windows Server 2012 R2 is limited to are not.
      const handshake = (ciphers: string) =>
        new Promise<string>((resolve) => {
          const s = tls.connect(
            {
              host: '127.0.0.1',
              port: httpsPort,
              servername: 'localhost',
              ca: own,
              ciphers,
              minVersion: 'TLSv1.2',
              maxVersion: 'TLSv1.2',
            },
            () => {
              resolve(`${s.getProtocol()} ${s.getCipher().standardName}`);
              s.end();
            },
          );
          s.on('error', () => resolve('refused'));
        });
      expect(await handshake('ECDHE-RSA-AES128-GCM-SHA256')).toBe('TLSv1.2 TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256');
      expect(await handshake('ECDHE-RSA-AES256-GCM-SHA384')).toBe('TLSv1.2 TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384');
      expect(await handshake('ECDHE-RSA-AES256-SHA384')).toBe('refused');
    } finally {
      await stop(p);
    }
  });

  it('takes an agent event, its re-send, a 1 MB batch and the command poll at the one base URL', async () => {
    const agent = windowsAgent('WS-CADDY');
    const e = rdpMonitor.heartbeat(agent);
    expect((await postEvent(e)).status).toBe(201);
    expect((await postEvent(e)).status).toBe(409);
    // The api role has no POST /api/v1/events: a 201 here means the proxy chose ingest.
    // One heartbeat per host and millisecond: the same host's identical heartbeat in the same millisecond
    // would be one event posted twice (ingest/src/resend.ts).
    const t0 = Date.now() - 10_000;
    const lines = Array.from({ length: 2000 }, (_, i) =>
      JSON.stringify(rdpMonitor.heartbeat(windowsAgent(`WS-B${i % 40}`), new Date(t0 + i))),
    );
    const batch = Buffer.from(lines.join('\n') + '\n');
    expect(batch.length).toBeGreaterThan(1_000_000);
    const r = await request('POST', '/api/v1/events/batch', {
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/x-ndjson' },
      body: batch,
    });
    expect([r.status, r.json().created]).toEqual([200, 2000]);
    const poll = await request('GET', `/api/v1/agent/commands?agent_instance_id=${agent.agentInstanceId}`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect([poll.status, poll.json()]).toEqual([200, { commands: [] }]);
    expect((await request('GET', '/api/v1/agent/commands', { headers: { authorization: 'Bearer sac_wrong' } })).status).toBe(401);
  });

  it('a browser logs in: the refresh cookie is Secure and HttpOnly, and the address recorded is the client, not a forged one', async () => {
    const r = await login({ 'x-forwarded-for': FORGED });
    expect(r.status).toBe(200);
    const attrs = refreshCookie(r.headers['set-cookie']);
    expect(attrs).toEqual(expect.arrayContaining(['Secure', 'HttpOnly', 'SameSite=Strict']));
    expect(r.headers['strict-transport-security']).toMatch(/max-age=\d+/);
    const refreshed = await request('POST', '/api/v1/auth/refresh', {
      headers: { cookie: attrs[0]!, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(refreshed.status).toBe(200);
    // Caddy replaces a client's X-Forwarded-For; the api believes it from the proxy only.
    const q = "SELECT address FROM audit_log WHERE action = 'auth.login.success' ORDER BY id";
    expect((await stores.pg.query(q)).rows.map((x) => x.address)).toEqual([CLIENT]);
    // Straight to the api's port (compose publishes none), the same forged header counts for nothing:
    // the address is the peer's, and over plain HTTP the cookie is not Secure.
    const d = await direct(
      ports.api,
      'POST',
      '/api/v1/auth/login',
      { 'content-type': 'application/json', 'x-forwarded-for': FORGED, 'x-forwarded-proto': 'https' },
      JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD, refresh_cookie: true }),
    );
    expect(d.status).toBe(200);
    expect(refreshCookie(d.headers['set-cookie'])).not.toContain('Secure');
    expect((await stores.pg.query(q)).rows.map((x) => x.address)).toEqual([CLIENT, CLIENT]);
  });

  it('streams live messages unbuffered: an agent event reaches the open stream through ingest, Kafka and the stream role', async () => {
    const token = (await login()).json().access_token as string;
    const sse = new SseClient();
    let contentType: string | undefined;
    await new Promise<void>((resolve, reject) => {
      const req = https.get(
        `${base}/api/v1/stream/events?access_token=${encodeURIComponent(token)}`,
        { ca, localAddress: CLIENT, agent: false, headers: { accept: 'text/event-stream' } },
        (res) => {
          sse.status = res.statusCode ?? 0;
          contentType = res.headers['content-type'];
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => sse.feed(chunk));
          res.on('error', () => {});
          resolve();
        },
      );
      sse.req = req;
      req.on('error', reject);
    });
    try {
      expect([sse.status, contentType]).toEqual([200, 'text/event-stream; charset=utf-8']);
      // The first frame while the response stays open: nothing holds it back.
      await sse.waitFor((f) => f.event === 'ready', 10_000);
      // The stream role joins its consumer group at the end of the topic: send until one is counted.
      const agent = windowsAgent('WS-LIVE');
      let frame;
      for (let i = 0; i < 30 && !frame; i++) {
        expect((await postEvent(rdpMonitor.heartbeat(agent))).status).toBe(201);
        frame = await sse.waitFor((f) => f.event === 'events', 3000).catch(() => undefined);
      }
      expect(JSON.parse(frame!.data)).toMatchObject({ kind: 'events', heartbeats: expect.any(Number) });
    } finally {
      sse.close();
    }
  });

  it('serves the UI and the API reads from the api role; /metrics stays inside', async () => {
    const index = await request('GET', '/');
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toMatch(/^text\/html/);
    expect(index.body).toContain('<script type="module"');
    expect((await request('GET', '/hosts')).body).toBe(index.body); // a deep link gets the UI too
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(index.body)![1]!;
    expect((await request('GET', asset)).status).toBe(200);
    const token = (await login()).json().access_token as string;
    // GET /api/v1/events is the api's events list, not ingest's intake.
    const list = await request('GET', '/api/v1/events?page_size=1', { headers: { authorization: `Bearer ${token}` } });
    expect(list.status).toBe(200);
    expect(Array.isArray(list.json().items)).toBe(true);
    expect((await request('GET', '/metrics')).status).toBe(404);
  });
});
