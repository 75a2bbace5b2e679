// A real OpenSSH server (Debian's openssh-server) for tests: started as a plain process on a free
// loopback port with its own host key, config and authorized key in a temporary directory. No system
// service is started or changed (the package is installed when missing, with Debian's policy-rc.d
// keeping its service down). It admits the current user with the generated key, or, with
// `serviceUser`, a dedicated unprivileged test user holding exactly the sudo rule an operator gives
// the service (api/ACTIONS.md): that user and rule are created for the test and removed after it.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';

export const SSHD_PATH = '/usr/sbin/sshd';
/** The unprivileged account `serviceUser` servers admit (a system account made for the test). */
export const SSH_TEST_USER = 'watchpost-sshtest';
const SUDOERS_FILE = `/etc/sudoers.d/${SSH_TEST_USER}`;

export interface TestSshd {
  port: number;
  username: string;
  /** the client's private key (OpenSSH format) */
  privateKey: string;
  privateKeyFile: string;
  dir: string;
  /** TCP connections sshd accepted so far (its "Connection from" log lines; the start-up probe included). */
  connections(): number;
  close(): Promise<void>;
}

function aptInstall(pkg: string): void {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () =>
    execFileSync('apt-get', ['install', '-y', '-q', '--no-install-recommends', pkg], { stdio: 'inherit', env });
  try {
    install();
  } catch {
    // a fresh machine has no package lists yet
    execFileSync('apt-get', ['update', '-q'], { stdio: 'inherit', env });
    install();
  }
}

/** Installs openssh-server with apt-get when sshd is missing (the test setup's one system change). */
export function ensureSshd(): void {
  if (!existsSync(SSHD_PATH)) aptInstall('openssh-server');
}

/**
 * The test user with `sudoCommands` as its NOPASSWD sudo rule (checked with visudo). Needs root, as
 * on CI; elsewhere the error says so.
 */
function createServiceUser(home: string, sudoCommands: string[]): void {
  if (process.getuid?.() !== 0)
    throw new Error(`the SSH tests create the user ${SSH_TEST_USER} and its sudo rule: run them as root (CI does)`);
  if (!existsSync('/usr/bin/sudo')) aptInstall('sudo');
  const exists = (() => {
    try {
      execFileSync('id', ['-u', SSH_TEST_USER], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  if (!exists) execFileSync('useradd', ['--system', '--no-create-home', '--home-dir', home, '--shell', '/bin/sh', SSH_TEST_USER]);
  else execFileSync('usermod', ['--home', home, SSH_TEST_USER]);
  // '!' (locked, useradd's default) makes sshd refuse even a key without PAM; '*' only means no password.
  execFileSync('usermod', ['-p', '*', SSH_TEST_USER]);
  mkdirSync(home, { recursive: true });
  const uid = Number(execFileSync('id', ['-u', SSH_TEST_USER]).toString().trim());
  const gid = Number(execFileSync('id', ['-g', SSH_TEST_USER]).toString().trim());
  chownSync(home, uid, gid);
  const rule = `${SSH_TEST_USER} ALL=(root) NOPASSWD: ${sudoCommands.join(', ')}\n`;
  const staged = join(home, '..', 'sudoers');
  writeFileSync(staged, rule, { mode: 0o440 });
  execFileSync('visudo', ['-c', '-q', '-f', staged]);
  writeFileSync(SUDOERS_FILE, rule, { mode: 0o440 });
}

function removeServiceUser(): void {
  rmSync(SUDOERS_FILE, { force: true });
  try {
    execFileSync('userdel', [SSH_TEST_USER], { stdio: 'ignore' });
  } catch {
    // already gone
  }
}

export async function startTestSshd(opts: { serviceUser?: { sudoCommands: string[] } } = {}): Promise<TestSshd> {
  ensureSshd();
  // sshd refuses to start as root without its privilege-separation directory (the service unit makes it).
  if (process.getuid?.() === 0 && !existsSync('/run/sshd')) mkdirSync('/run/sshd', { mode: 0o755 });
  const dir = mkdtempSync(join(tmpdir(), 'watchpost-sshd-'));
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'host_ed25519')]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'client_ed25519')]);
  // sshd reads authorized_keys as the user logging in: readable for the test user too.
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client_ed25519.pub')), { mode: 0o644 });
  chmodSync(dir, 0o755);
  if (opts.serviceUser) createServiceUser(join(dir, 'home'), opts.serviceUser.sudoCommands);
  const username = opts.serviceUser ? SSH_TEST_USER : userInfo().username;
  const port = await freePort();
  const config = [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${join(dir, 'host_ed25519')}`,
    `PidFile ${join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
    'PubkeyAuthentication yes',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'PermitRootLogin prohibit-password',
    `AllowUsers ${username}`,
    'StrictModes no',
    'UsePAM no',
    'X11Forwarding no',
    'AllowTcpForwarding no',
    'PrintMotd no',
    // VERBOSE logs each accepted connection: a test sees whether anything reached the server.
    'LogLevel VERBOSE',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'sshd_config'), config);
  const proc: ChildProcess = spawn(SSHD_PATH, ['-D', '-e', '-f', join(dir, 'sshd_config')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  await waitForPort(port, proc, () => stderr);
  return {
    port,
    username,
    privateKey: readFileSync(join(dir, 'client_ed25519'), 'utf8'),
    privateKeyFile: join(dir, 'client_ed25519'),
    dir,
    connections: () => (stderr.match(/^Connection from /gm) ?? []).length,
    async close() {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await exited;
      }
      if (opts.serviceUser) removeServiceUser();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitForPort(port: number, proc: ChildProcess, stderr: () => string): Promise<void> {
  const { connect } = await import('node:net');
  const until = Date.now() + 10_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`sshd exited with ${proc.exitCode}: ${stderr()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`sshd did not listen on ${port}: ${stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
