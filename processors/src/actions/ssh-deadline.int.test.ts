// A server that authenticates but never opens the command's channel (a hung sshd, a stuck PAM
// session): the command still ends at the action's deadline. The peer is ssh2's own server over a
// real socket, since OpenSSH cannot be told to hang there.
import { generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ssh2 from 'ssh2';
import { connectSsh } from './ssh.ts';

const pem = (type: 'pkcs1' | 'pkcs8') =>
  generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type, format: 'pem' }).toString();

let server: ssh2.Server;
let port = 0;
let sessionsAsked = 0;

beforeAll(async () => {
  server = new ssh2.Server({ hostKeys: [pem('pkcs1')] }, (client) => {
    client.on('authentication', (ctx) => ctx.accept());
    client.on('ready', () =>
      client.on('session', () => {
        sessionsAsked += 1; // neither accepted nor rejected: the channel never opens
      }),
    );
    client.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('SSH deadline', () => {
  it('a command whose channel never opens fails at the deadline instead of hanging', async () => {
    const signal = AbortSignal.timeout(1500);
    const conn = await connectSsh(
      { address: '127.0.0.1', port, username: 'agent', privateKey: pem('pkcs1'), pinnedHostKey: null },
      signal,
      5000,
    );
    const started = Date.now();
    const err = await conn.exec('true').catch((e: unknown) => e);
    expect(sessionsAsked).toBe(1);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/timed out/);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
