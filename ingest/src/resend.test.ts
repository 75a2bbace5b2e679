// The content identity of a re-sent Windows event (resend.ts), on the agent's own payloads (testkit
// agent-fixtures, built from Sac-Client.ps1 New-SacEventPayload).
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { EventV1 } from '@watchpost/schemas';
import { rdpMonitor, windowsAgent } from '@watchpost/testkit';
import { resendKeyOf } from './resend.ts';

const ws = windowsAgent('WS-01');
const at = new Date('2026-11-28T10:15:30.123Z');
const repost = (e: EventV1): EventV1 => ({ ...structuredClone(e), event_id: randomUUID() });

describe('resendKeyOf', () => {
  it('is the same for the same Windows event posted again under a new event_id', () => {
    const e = rdpMonitor.loginFailed(ws, 'CORP\\erin', '203.0.113.61', at);
    const k = resendKeyOf(e);
    expect(k).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(resendKeyOf(repost(e))).toBe(k);
  });

  it('ignores what changes per post: details key order, telegram_via, host.ipv4, the version, the offset notation', () => {
    const e = rdpMonitor.loginSuccess(ws, 'CORP\\erin', '198.51.100.61', at);
    const k = resendKeyOf(e);
    const d = e.details!;
    const reordered = Object.fromEntries(Object.entries(d).reverse());
    expect(resendKeyOf({ ...repost(e), details: reordered })).toBe(k);
    expect(resendKeyOf({ ...repost(e), details: { ...d, telegram_via: 'agent' } })).toBe(k);
    expect(resendKeyOf({ ...repost(e), host: { ...e.host, ipv4: '192.168.50.4', hostname: 'ws-01' } })).toBe(k);
    expect(resendKeyOf({ ...repost(e), source: { ...e.source, product_version: '2.1.8-SAC' } })).toBe(k);
    // The same instant written in UTC instead of the host's +03:00.
    expect(resendKeyOf({ ...repost(e), occurred_at: at.toISOString() })).toBe(k);
  });

  it('differs for another event: another millisecond, user, type, severity or detail', () => {
    const e = rdpMonitor.loginFailed(ws, 'CORP\\erin', '203.0.113.61', at);
    const k = resendKeyOf(e);
    const other = [
      rdpMonitor.loginFailed(ws, 'CORP\\erin', '203.0.113.61', new Date(at.getTime() + 1)),
      rdpMonitor.loginFailed(ws, 'CORP\\frank', '203.0.113.61', at),
      rdpMonitor.loginFailed(windowsAgent('WS-02'), 'CORP\\erin', '203.0.113.61', at),
      { ...repost(e), type: 'agent.notification' },
      { ...repost(e), severity: 'high' as const },
      { ...repost(e), details: { ...e.details, logon_type: 10 } },
      { ...repost(e), details: undefined },
    ];
    for (const o of other) expect(resendKeyOf(o)).not.toBe(k);
  });

  it('is undefined for products that do not re-send under new ids', () => {
    expect(resendKeyOf(rdpMonitor.loginFailed(ws, 'x', '203.0.113.61', at))).toBeDefined();
    const linux = {
      ...rdpMonitor.loginFailed(ws, 'x', '203.0.113.61', at),
      source: { product: 'ssh-monitor' as const, product_version: '1' },
    };
    expect(resendKeyOf(linux)).toBeUndefined();
  });
});
