import { describe, expect, it } from 'vitest';
import { ACTOR_USER_KEYS, SOURCE_ADDRESS_KEYS } from '@watchpost/schemas';
import { envelopeToRow, pickDetail, toUnixSeconds } from './rows.ts';
import { makeEnvelope, rdpMonitor, windowsAgent } from '@watchpost/testkit';

describe('pickDetail', () => {
  it.each([
    [{ user: 'alice', username: 'bob' }, ACTOR_USER_KEYS, 'alice'],
    [{ username: 'bob', target_user: 'carol' }, ACTOR_USER_KEYS, 'bob'],
    [{ target_user: 'carol', account: 'DOMAIN\\dave' }, ACTOR_USER_KEYS, 'carol'],
    [{ account: 'DOMAIN\\dave' }, ACTOR_USER_KEYS, 'DOMAIN\\dave'],
    [{ user: '', username: '  ', account: 'x' }, ACTOR_USER_KEYS, 'x'],
    [{ user: { name: 'nested' }, username: 'flat' }, ACTOR_USER_KEYS, 'flat'],
    [{ user: 1001 }, ACTOR_USER_KEYS, '1001'],
    [{}, ACTOR_USER_KEYS, ''],
    [undefined, ACTOR_USER_KEYS, ''],
    [['user'], ACTOR_USER_KEYS, ''],
    [{ source_ip: '203.0.113.1', ip: '10.0.0.1' }, SOURCE_ADDRESS_KEYS, '203.0.113.1'],
    [{ ip: '10.0.0.1', client_ip: '10.0.0.2' }, SOURCE_ADDRESS_KEYS, '10.0.0.2'],
    [{ client_ip: '2001:db8::1' }, SOURCE_ADDRESS_KEYS, '2001:db8::1'],
    // rdp-login-monitor: logins carry ip_address, RD Gateway external_ip (internal_ip is the resource), WinRM/SMB both
    [{ user: 'CORP\\alice', ip_address: '198.51.100.20', logon_type: 10 }, SOURCE_ADDRESS_KEYS, '198.51.100.20'],
    [{ external_ip: '198.51.100.21', internal_ip: '10.0.0.21' }, SOURCE_ADDRESS_KEYS, '198.51.100.21'],
    [{ source_ip: '10.0.0.7', ip_address: '10.0.0.7' }, SOURCE_ADDRESS_KEYS, '10.0.0.7'],
    // its placeholders for "Windows did not say"
    [{ ip_address: '-', ip: '192.0.2.1' }, SOURCE_ADDRESS_KEYS, '192.0.2.1'],
    [{ external_ip: 'N/A' }, SOURCE_ADDRESS_KEYS, ''],
    [{ user: '-', target_user: 'bob' }, ACTOR_USER_KEYS, 'bob'],
  ] as const)('%j -> %s', (details, keys, expected) => {
    expect(pickDetail(details, keys)).toBe(expected);
  });
});

describe('toUnixSeconds', () => {
  it.each([
    ['2026-01-02T03:04:05Z', 1767323045],
    ['2026-01-02T05:04:05.999+02:00', 1767323045],
    ['1969-12-31T23:59:59Z', 0],
    ['2200-01-01T00:00:00Z', 4294967295],
    ['not a date', 0],
  ])('%s -> %d', (iso, s) => expect(toUnixSeconds(iso)).toBe(s));
});

describe('envelopeToRow', () => {
  it('maps every column', () => {
    const env = makeEnvelope({ occurred_at: '2026-03-01T10:00:00+01:00' }, 7, new Date('2026-03-01T09:00:01.250Z'));
    const row = envelopeToRow(env);
    expect(row).toMatchObject({
      event_id: env.event.event_id,
      occurred_at: Date.parse('2026-03-01T09:00:00Z') / 1000,
      received_at: Date.parse('2026-03-01T09:00:01Z') / 1000,
      agent_occurred_at: Date.parse('2026-03-01T09:00:00Z') / 1000,
      clock_skewed: 0,
      hostname: 'host-7.example.org',
      display_name: 'Host 7',
      os_family: 'linux',
      product: 'ssh-monitor',
      product_version: '2.4.1',
      category: 'auth',
      type: 'ssh.login.failed',
      severity: 'warning',
      tags: ['ssh', 'bruteforce'],
      dedup_key: 'ssh-fail-root-host-7',
      correlation_id: '',
      fingerprint: 'f3a9c2',
      actor_user: 'root',
      source_ip: '203.0.113.7',
    });
    expect(JSON.parse(row.event_json)).toEqual(env.event);
  });

  it("counts the Windows agent's 4625 sent as agent.notification as a failed RDP login, kept as sent", () => {
    const e = rdpMonitor.loginFailedUnlimited(windowsAgent('WS-01'), 'erin', '203.0.113.61');
    const row = envelopeToRow({ received_at: new Date().toISOString(), event: e });
    expect(row).toMatchObject({ type: 'rdp.login.failed', severity: 'warning', actor_user: 'erin', source_ip: '203.0.113.61' });
    expect(JSON.parse(row.event_json)).toMatchObject({ type: 'agent.notification', severity: 'info' });
  });

  it.each([
    ['3 h ahead', '2026-03-01T15:00:00+03:00', Date.parse('2026-03-01T12:00:00Z')],
    ['reset to 2001', '2001-01-01T00:00:00Z', Date.parse('2001-01-01T00:00:00Z')],
  ])('a clock %s: occurred_at is the receive time, the agent time kept and flagged', (_n, occurred, agent) => {
    const received = new Date('2026-03-01T09:00:01.250Z');
    const row = envelopeToRow(makeEnvelope({ occurred_at: occurred }, 1, received));
    expect(row).toMatchObject({
      occurred_at: Date.parse('2026-03-01T09:00:01Z') / 1000,
      received_at: Date.parse('2026-03-01T09:00:01Z') / 1000,
      agent_occurred_at: agent / 1000,
      clock_skewed: 1,
    });
    expect(JSON.parse(row.event_json).occurred_at).toBe(occurred);
  });

  it('uses empty strings and no tags for absent optional fields', () => {
    const env = makeEnvelope();
    const { details: _d, tags: _t, dedup_key: _k, fingerprint: _f, ...bare } = env.event;
    const row = envelopeToRow({ ...env, event: { ...bare, host: { hostname: 'h', os_family: 'windows' } } });
    expect(row).toMatchObject({
      display_name: '',
      tags: [],
      dedup_key: '',
      fingerprint: '',
      actor_user: '',
      source_ip: '',
      os_family: 'windows',
    });
  });
});
