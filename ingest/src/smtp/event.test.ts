// The e-mail -> event step on its own: host, display name and address from the agent's label, identity.
import { describe, expect, it } from 'vitest';
import { SSH_MONITOR_MAILS } from '@watchpost/testkit';
import { hostOfSubject, mailEventId, mailText, sshMonitorMailEvent } from './event.ts';

const at = new Date('2026-11-28T10:15:31Z');
const heartbeat = (label: string) => SSH_MONITOR_MAILS.heartbeat.replace('web-01 (10.0.0.5)', label);

describe('sshMonitorMailEvent', () => {
  it.each([
    ['web-01 (10.0.0.5)', 'web-01', undefined, '10.0.0.5'],
    ['gateway (10.0.0.5)', 'web-01', 'gateway', '10.0.0.5'],
    ['web-01', 'web-01', undefined, undefined],
    // The label is the agent's SERVER_NAME and address as it found them: a bad address is left out, not refused.
    ['web-01 (10.0.0.300)', 'web-01', undefined, undefined],
  ])('label %j on host %s: display name %j, ipv4 %j', (label, hostname, display, ipv4) => {
    const r = sshMonitorMailEvent({ subject: `[ssh-monitor] ${hostname}`, text: heartbeat(label) }, 7, at);
    expect(r.ok).toBe(true);
    const host = r.ok ? r.event.host : null;
    expect(host).toEqual({
      hostname,
      os_family: 'linux',
      ...(display ? { display_name: display } : {}),
      ...(ipv4 ? { ipv4 } : {}),
    });
  });

  it('takes the host from the subject only, and refuses what is not the agent’s message', () => {
    expect(hostOfSubject('[ssh-monitor] web-01.example.org')).toBe('web-01.example.org');
    expect(hostOfSubject('Re: [ssh-monitor] web-01')).toBeNull();
    expect(sshMonitorMailEvent({ subject: 'hello', text: 'x' }, 7, at)).toMatchObject({ ok: false });
    expect(sshMonitorMailEvent({ subject: '[ssh-monitor] web-01', text: '\r\n' }, 7, at)).toMatchObject({ ok: false });
  });

  it('is the same event for the same key, host and text, whatever the line ends; another key is another event', () => {
    const text = SSH_MONITOR_MAILS.sudo;
    const crlf = `${text.replace(/\n/g, '\r\n')}\r\n`;
    expect(mailEventId(7, 'Web-01', mailText(crlf))).toBe(mailEventId(7, 'web-01', mailText(text)));
    expect(mailEventId(8, 'web-01', mailText(text))).not.toBe(mailEventId(7, 'web-01', mailText(text)));
    const a = sshMonitorMailEvent({ subject: '[ssh-monitor] web-01', text }, 7, at);
    const b = sshMonitorMailEvent({ subject: '[ssh-monitor] web-01', text: crlf }, 7, new Date(at.getTime() + 5000));
    expect(a.ok && b.ok && a.event.event_id === b.event.event_id).toBe(true);
  });
});
