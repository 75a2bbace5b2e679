// The SMTP phase's load: `connections` clients, each sending ssh-monitor's failed-login alert as the
// agent's e-mail channel does (send_email_raw: a new connection per message, EHLO, STARTTLS, AUTH, one
// message, QUIT), for `seconds`. nodemailer's SMTP client stands in for python3 smtplib: the same
// commands, and a client cheap enough to load the server from the same machine (its CPU is reported).
import SMTPConnection from 'nodemailer/lib/smtp-connection/index.js';
import { SSH_MONITOR_MAILS } from '@watchpost/testkit';

/** What a load run measured (wrk's figures; for SMTP, non2xx = messages refused or connections failed). */
export interface LoadResult {
  requests: number;
  seconds: number;
  non2xx: number;
  socketErrors: number;
  p50ms: number;
  p99ms: number;
}

export interface SmtpLoadResult extends LoadResult {
  /** CPU seconds the client (this process) spent. */
  clientCpuSeconds: number;
}

/** One message on its own connection; resolves true on 250. */
function sendOne(port: number, key: string, hostname: string, body: string): Promise<boolean> {
  return new Promise((resolve) => {
    const c = new SMTPConnection({ host: '127.0.0.1', port, requireTLS: true, tls: { rejectUnauthorized: false } });
    let settled = false;
    const done = (ok: boolean) => {
      if (settled) return;
      settled = true;
      if (ok) c.quit();
      else c.close();
      resolve(ok);
    };
    c.on('error', () => done(false));
    c.connect(() =>
      c.login({ user: 'ssh-monitor', pass: key }, (err) => {
        if (err) return done(false);
        c.send(
          { from: `ssh-monitor@${hostname}`, to: ['watchpost@example.org'] },
          `Subject: [ssh-monitor] ${hostname}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${body}\r\n`,
          (e) => done(!e),
        );
      }),
    );
  });
}

/** `nonce` keeps every run's texts (and so its event ids) distinct from the runs before. */
export async function runSmtpLoad(args: {
  port: number;
  key: string;
  connections: number;
  seconds: number;
  hosts: number;
  nonce: string;
}): Promise<SmtpLoadResult> {
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const end = start + args.seconds * 1000;
  const lat: number[] = [];
  let ok = 0;
  let failed = 0;
  let n = 0;
  const worker = async () => {
    while (performance.now() < end) {
      const i = n++;
      // A distinct text per message (the attempt line), so each is a new event, not a retry.
      const body = SSH_MONITOR_MAILS.login_failed.replace('Попытка 2 из 5', `Попытка ${i} из 5 (${args.nonce})`);
      const t = performance.now();
      if (await sendOne(args.port, args.key, `bench-${i % args.hosts}`, body)) {
        ok++;
        lat.push(performance.now() - t);
      } else failed++;
    }
  };
  await Promise.all(Array.from({ length: args.connections }, worker));
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  lat.sort((a, b) => a - b);
  const q = (p: number) => (lat.length ? lat[Math.min(lat.length - 1, Math.floor(p * lat.length))]! : NaN);
  return {
    requests: ok + failed,
    seconds,
    non2xx: failed,
    socketErrors: 0,
    p50ms: q(0.5),
    p99ms: q(0.99),
    clientCpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}
