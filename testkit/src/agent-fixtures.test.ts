// Every agent fixture is a valid schema-v1 event (the validator ingest uses) and has the shape the
// agents' code gives it: envelope fields, category per Get-SacCategoryForType (Windows), the host block.
import { describe, expect, it } from 'vitest';
import { validateEvent } from '@watchpost/schemas';
import { everyAgentFixture, rdpMonitor, sacCategory, sacOccurredAt, windowsAgent } from './agent-fixtures.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('agent fixtures', () => {
  const all = everyAgentFixture();

  it.each(all.map((f) => [f.name, f.event] as const))('%s passes schema v1', (_name, event) => {
    const r = validateEvent(JSON.parse(JSON.stringify(event)));
    expect(r.ok ? [] : r.errors).toEqual([]);
  });

  it('build the envelope as Sac-Client.ps1 New-SacEventPayload does', () => {
    for (const { name, event } of all) {
      expect([name, event.schema_version]).toEqual([name, '1.0']);
      expect(event.event_id).toMatch(UUID);
      expect(event.source.agent_instance_id).toMatch(UUID);
      expect(event.details?.generated_by).toBe('agent');
    }
    const win = all.filter((f) => f.event.source.product === 'rdp-login-monitor');
    expect(new Set(win.map((f) => f.event.source.product_version))).toEqual(new Set(['2.1.7-SAC']));
    // The Linux builders (a proposal) take the SMTP parser's categories: ingest's ssh-monitor-messages.test.ts.
    for (const { event } of win) {
      expect(event.category).toBe(sacCategory(event.type));
      expect(event.host).toEqual({
        hostname: 'WS-01',
        os_family: 'windows',
        display_name: 'WS-01 (10.0.0.21)',
        ipv4: '10.0.0.21',
      });
      expect(event.occurred_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/);
    }
    // Get-SacCategoryForType: winrm./smb. are not in its list -> agent; rdg. -> network
    expect(
      ['winrm.session.started', 'smb.admin_share.access', 'rdg.connection.failed', 'auth.account.locked'].map(sacCategory),
    ).toEqual(['agent', 'agent', 'network', 'auth']);
  });

  it('name the RD Gateway types as Get-RdgGatewaySacEventType and mark telegram_via as Send-NotifyOrSac', () => {
    const a = windowsAgent('ws-02', { telegramVia: 'agent' });
    const g = (code: 302 | 303, errorCode?: string) =>
      rdpMonitor.gateway(a, {
        code,
        user: 'CORP\\u',
        clientIp: '198.51.100.1',
        resource: 'WS-02',
        ...(errorCode ? { errorCode } : {}),
      });
    expect([g(302).type, g(303).type, g(303, '0').type, g(303, '23').type]).toEqual([
      'rdg.connection.success',
      'rdg.connection.disconnected',
      'rdg.connection.disconnected',
      'rdg.connection.failed',
    ]);
    expect(g(302).host.hostname).toBe('WS-02');
    expect(g(302).details?.telegram_via).toBe('agent');
    expect(rdpMonitor.heartbeat(a).details?.telegram_via).toBe('sac'); // heartbeats: always sac
    expect(rdpMonitor.inventory(a).details).not.toHaveProperty('telegram_via'); // Send-SacEvent directly
  });

  it("writes occurred_at as .NET's yyyy-MM-ddTHH:mm:ss.fffK on the host's clock", () => {
    const at = new Date('2026-03-01T21:30:05.250Z');
    expect(sacOccurredAt(at, 180)).toBe('2026-03-02T00:30:05.250+03:00');
    expect(sacOccurredAt(at, -300, false)).toBe('2026-03-01T16:30:05-05:00');
    expect(Date.parse(sacOccurredAt(at, 180))).toBe(at.getTime());
  });
});
