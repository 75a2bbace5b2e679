// The fleet-like event mix of bench:correlate and bench:e2e, deterministic for a seed (ids included).
// Per 100 steps over BENCH_HOSTS hosts (default 800, a quarter Windows): 75 heartbeats, 8 successful
// logins, 5 failed logins (warning), 2.5 sudo commands (high, rule sudo_root), 2 IP bans (warning),
// 4 RD Gateway pairs (302 then 303 of one session, 0.5..30 s apart on the host clock: about half are
// flaps), 1 inventory (hardware changes in 1 of 10), 2.5 daily reports. An RD Gateway step yields two
// events, so events are ~104 per 100 steps. received_at advances 2 ms per event from `base`.
import type { EventEnvelope } from '@watchpost/schemas';
import { envelope, seeded } from '@watchpost/testkit/correlate';

const GAPS_MS = [500, 2000, 5000, 8000, 15_000, 30_000];
const SUMMARY =
  'Accepted publickey for deploy from 198.51.100.23 port 51234 ssh2: ED25519 SHA256:Zm9vYmFyYmF6cXV4cXV1eHF1dXg (session opened)';

export function* fleetEvents(
  n: number,
  seed = 1,
  hosts = 800,
  base = new Date('2025-03-01T00:00:00.000Z'),
): Generator<EventEnvelope> {
  const rnd = seeded(seed);
  const hex = (k: number) =>
    Array.from({ length: k }, () =>
      Math.floor(rnd() * 16)
        .toString(16)
        .toString(),
    ).join('');
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[Math.floor(rnd() * 4)]}${hex(3)}-${hex(12)}`;
  let i = 0;
  let session = 0;
  const cores = new Map<number, number>();
  const make = (host: number, o: Partial<Parameters<typeof envelope>[0]>, occurredShiftMs = -150): EventEnvelope => {
    const receivedAt = new Date(base.getTime() + i * 2);
    i++;
    const e = envelope({
      host: `fleet-${String(host).padStart(4, '0')}`,
      receivedAt,
      occurredAt: new Date(receivedAt.getTime() + occurredShiftMs),
      eventId: uuid(),
      osFamily: host % 4 === 3 ? 'windows' : 'linux',
      ...o,
    });
    e.event.summary = SUMMARY;
    return e as unknown as EventEnvelope;
  };
  while (i < n) {
    const h = Math.floor(rnd() * hosts);
    const win = h % 4 === 3;
    const r = rnd() * 100;
    if (r < 75) yield make(h, { type: 'agent.heartbeat', severity: 'info', title: 'heartbeat' });
    else if (r < 83) yield make(h, { type: win ? 'rdp.login.success' : 'ssh.login.success', severity: 'info' });
    else if (r < 88) yield make(h, { type: win ? 'rdp.login.failed' : 'ssh.login.failed', severity: 'warning' });
    else if (r < 90.5)
      yield make(h, { type: 'privilege.sudo.command', severity: 'high', details: { rule: 'sudo_root', user: 'deploy' } });
    else if (r < 92.5) yield make(h, { type: 'ssh.ip.banned', severity: 'warning', details: { source_ip: '203.0.113.7' } });
    else if (r < 96.5) {
      const gw = win ? h : h - (h % 4) + 3; // gateways are the Windows hosts
      const sid = `S-${++session}`;
      const gap = GAPS_MS[Math.floor(rnd() * GAPS_MS.length)]!;
      yield make(gw, { type: 'rdg.connection.success', severity: 'info', details: { event_code: 302, session_id: sid } });
      if (i < n)
        yield make(
          gw,
          { type: 'rdg.connection.disconnected', severity: 'info', details: { event_code: 303, session_id: sid } },
          gap,
        );
    } else if (r < 97.5) {
      if (rnd() < 0.1) cores.set(h, (cores.get(h) ?? 8) === 8 ? 16 : 8);
      const hardware = {
        cpu: { model: 'Xeon Gold 6338', cores: cores.get(h) ?? 8 },
        memory_mb: 32768,
        disks: [{ size_gb: 512 }],
      };
      yield make(h, {
        type: 'agent.inventory',
        severity: 'info',
        details: { hardware, software: [{ name: 'openssh', version: '9.6' }] },
      });
    } else yield make(h, { type: win ? 'report.daily.rdp' : 'report.daily.ssh', severity: 'info', title: 'daily report' });
  }
}
