import { describe, expect, it } from 'vitest';
import { burstBucket, eventKindOf, eventUserOf, sourceAddressOf } from './event-details.ts';

// rdp-login-monitor's details as Login_Monitor.ps1 sends them (PTah/RDP-login-monitor 2.1.7-SAC): the burst
// alert (main loop, "Notify burst 4625": tier, count, bucket_key) and the RDS shadow event (shadow poll).
describe('what the Windows agent says only in bucket_key or shadower_user', () => {
  it.each([
    { key: 'tier1:ip:203.0.113.9|CORP\\bob', want: { address: '203.0.113.9', workstation: null, user: 'CORP\\bob' } },
    { key: 'tier2:ip:203.0.113.9', want: { address: '203.0.113.9', workstation: null, user: null } },
    { key: 'tier1:ip:2001:db8::7|admin', want: { address: '2001:db8::7', workstation: null, user: 'admin' } },
    { key: 'tier1:wks:KIOSK-3|(не указан)', want: { address: null, workstation: 'KIOSK-3', user: null } },
    { key: 'tier2:unknown', want: { address: null, workstation: null, user: null } },
    { key: 'something else', want: { address: null, workstation: null, user: null } },
  ])('bucket_key $key', ({ key, want }) => {
    expect(burstBucket({ tier: 'UserIp', count: 12, bucket_key: key })).toEqual(want);
  });

  it('a burst alert has its user and source address; a plain field still wins', () => {
    const burst = { tier: 'UserIp', count: 12, bucket_key: 'tier1:ip:203.0.113.9|CORP\\bob' };
    expect([eventUserOf(burst), sourceAddressOf(burst)]).toEqual(['CORP\\bob', '203.0.113.9']);
    expect([eventUserOf({ ...burst, user: 'alice' }), sourceAddressOf({ ...burst, ip_address: '198.51.100.1' })]).toEqual([
      'alice',
      '198.51.100.1',
    ]);
    expect([eventUserOf(null), sourceAddressOf('text')]).toEqual([null, null]);
  });

  it('an RDS shadow event is acted by the shadower, not the user watched', () => {
    const shadow = { event_id_windows: 20508, shadow_mode: 'control', shadower_user: 'CORP\\helpdesk', target_user: 'CORP\\bob' };
    expect(eventUserOf(shadow)).toBe('CORP\\helpdesk');
    expect(eventUserOf({ ...shadow, shadower_user: '-' })).toBe('CORP\\bob');
  });
});

describe('what an event is, whatever the agent labelled it', () => {
  // Login_Monitor.ps1 main loop with its failed-logon rate limit off: a 4625 as agent.notification, info.
  const failed4625 = {
    type: 'agent.notification',
    severity: 'info' as const,
    details: { user: 'erin', ip_address: '203.0.113.61', logon_type: 3, event_id_windows: 4625 },
  };

  it('a 4625 sent as agent.notification is a failed RDP login, at least a warning', () => {
    expect(eventKindOf(failed4625)).toEqual({ type: 'rdp.login.failed', severity: 'warning' });
    expect(eventKindOf({ ...failed4625, details: { ...failed4625.details, event_id_windows: '4625' } }).type).toBe(
      'rdp.login.failed',
    );
    expect(eventKindOf({ ...failed4625, severity: 'high' })).toEqual({ type: 'rdp.login.failed', severity: 'high' });
  });

  it('every other event stays what it says', () => {
    const other = [
      { ...failed4625, details: { ...failed4625.details, event_id_windows: 4634 } },
      { ...failed4625, details: undefined },
      { ...failed4625, type: 'rdp.login.success' },
      { type: 'ssh.login.failed', severity: 'warning' as const },
    ];
    for (const e of other) expect(eventKindOf(e)).toEqual({ type: e.type, severity: e.severity });
  });
});
