// SSH to Linux hosts with ssh2: public-key authentication, the host key pinned on first use (its sha256
// stored in hosts.ssh_host_key_sha256; a different key later is refused), every step bounded by the
// action's signal. Commands run through the remote user's shell: every value in them is quoted with
// quotePosix by the caller.
import { createHash } from 'node:crypto';
import { Client, type ClientChannel } from 'ssh2';
import { RemoteError } from './errors.ts';

export interface SshTarget {
  address: string;
  port: number;
  username: string;
  privateKey: string;
  /** hex sha256 of the host key seen before, or null (first use: accepted and reported back). */
  pinnedHostKey: string | null;
}

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface SshConnection {
  /** hex sha256 of the host key the server presented */
  hostKey: string;
  exec(command: string, opts?: { stdin?: string }): Promise<ExecResult>;
  close(): void;
}

const MAX_OUTPUT = 1024 * 1024;

export function connectSsh(t: SshTarget, signal: AbortSignal, timeoutMs: number): Promise<SshConnection> {
  const where = `SSH ${t.username}@${t.address}:${t.port}`;
  return new Promise((resolve, reject) => {
    const client = new Client();
    let seenKey = '';
    let mismatch = false;
    const onAbort = () => {
      client.end();
      reject(new RemoteError(`${where}: timed out`));
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    client.on('ready', () => {
      signal.removeEventListener('abort', onAbort);
      resolve({
        hostKey: seenKey,
        exec: (command, opts) => exec(client, where, command, signal, opts?.stdin),
        close: () => client.end(),
      });
    });
    client.on('error', (err: Error & { level?: string }) => {
      signal.removeEventListener('abort', onAbort);
      if (mismatch)
        return reject(
          new RemoteError(
            `${where}: the host key changed (sha256 ${seenKey}); if the host was reinstalled, an admin resets its pinned key on the host page (Reset pinned SSH key)`,
          ),
        );
      const why = err.level === 'client-authentication' ? 'authentication refused (public key)' : err.message;
      reject(new RemoteError(`${where}: ${why}`));
    });
    try {
      client.connect({
        host: t.address,
        port: t.port,
        username: t.username,
        privateKey: t.privateKey,
        readyTimeout: timeoutMs,
        keepaliveInterval: 0,
        hostVerifier: (key: Buffer) => {
          seenKey = createHash('sha256').update(key).digest('hex');
          mismatch = t.pinnedHostKey !== null && t.pinnedHostKey !== seenKey;
          return !mismatch;
        },
      });
    } catch (err) {
      signal.removeEventListener('abort', onAbort);
      reject(new RemoteError(`${where}: ${(err as Error).message}`));
    }
  });
}

function exec(client: Client, where: string, command: string, signal: AbortSignal, stdin?: string): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new RemoteError(`${where}: timed out`));
    let stream: ClientChannel | undefined;
    // Listening from the start: a server that never confirms the channel is cut off by the deadline too.
    const onAbort = () => {
      if (stream) stream.close();
      else client.end();
      reject(new RemoteError(`${where}: timed out`));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    client.exec(command, (err: Error | undefined, ch: ClientChannel) => {
      if (err) {
        signal.removeEventListener('abort', onAbort);
        return reject(new RemoteError(`${where}: ${err.message}`));
      }
      if (signal.aborted) return ch.close();
      stream = ch;
      const out: Buffer[] = [];
      const errOut: Buffer[] = [];
      let size = 0;
      const collect = (into: Buffer[]) => (c: Buffer) => {
        size += c.length;
        if (size <= MAX_OUTPUT) into.push(c);
      };
      ch.on('data', collect(out));
      ch.stderr.on('data', collect(errOut));
      ch.on('close', (code: number | null, sig?: string) => {
        signal.removeEventListener('abort', onAbort);
        resolve({
          code: code ?? (sig ? 128 : -1),
          stdout: Buffer.concat(out).toString('utf8'),
          stderr: Buffer.concat(errOut).toString('utf8'),
        });
      });
      if (stdin !== undefined) ch.end(stdin);
      else ch.end();
    });
  });
}

/** The error text of a failed command: its exit code and the tail of its stderr (or stdout). */
export function commandFailure(what: string, r: ExecResult): RemoteError {
  const tail = (r.stderr.trim() || r.stdout.trim()).split('\n').slice(-5).join(' | ').slice(0, 500);
  return new RemoteError(`${what} failed with exit code ${r.code}${tail ? `: ${tail}` : ''}`);
}
