// One ssh-monitor alert e-mail -> one schema-v1 event (pure). The agent's e-mail (`send_email_raw`, lines
// 503-556 of `ssh-monitor`) has the subject `[ssh-monitor] <hostname>` (socket.gethostname()), no Date and
// no Message-ID, and the alert text as its body. Its text states the host's local time without a zone, so
// occurred_at is when the intake received it (the text's time is kept in details.agent_time).
import { isIPv4 } from 'node:net';
import { deterministicUuid } from '@watchpost/core/problems';
import { validateEvent, type EventV1 } from '@watchpost/schemas';
import { parseSshMonitorMessage } from './ssh-monitor-messages.ts';

/** The hostname in the agent's subject, null when the subject is not the agent's. */
export function hostOfSubject(subject: string | undefined): string | null {
  const m = /^\s*\[ssh-monitor\]\s+(\S{1,253})\s*$/i.exec(subject ?? '');
  return m ? m[1]! : null;
}

/**
 * A UUID from the message's own identity: the key it came under, the host, and the exact text. An SMTP
 * client's retry of the same message is the same event (a duplicate); the agent's texts carry their time
 * to the second, so two alerts differ.
 */
export function mailEventId(keyId: number, hostname: string, text: string): string {
  return deterministicUuid(`ssh-monitor-mail\n${keyId}\n${hostname.toLowerCase()}\n${text}`);
}

/** The body as the event keeps and hashes it: LF line ends, no trailing newlines. */
export function mailText(text: string | undefined): string {
  return (text ?? '').replace(/\r\n?/g, '\n').replace(/\n+$/, '');
}

export type MailEvent = { ok: true; event: EventV1 } | { ok: false; reason: string };

/** The event of one alert e-mail: `subject` and the plain `text` body as mailparser gives them. */
export function sshMonitorMailEvent(mail: { subject?: string; text?: string }, keyId: number, receivedAt: Date): MailEvent {
  const hostname = hostOfSubject(mail.subject);
  if (!hostname) return { ok: false, reason: 'the subject is not "[ssh-monitor] <hostname>"' };
  const text = mailText(mail.text);
  if (text.trim() === '') return { ok: false, reason: 'the message has no text' };
  const m = parseSshMonitorMessage(text);
  // "Сервер: <SERVER_NAME> (<address>)": the name is a display name when it is not the hostname.
  const server = /^(.*?)\s*(?:\((\d{1,3}(?:\.\d{1,3}){3})\))?\s*$/.exec(m.server ?? '');
  const name = server?.[1] ?? '';
  const display = name && name !== hostname ? name : undefined;
  const ipv4 = server?.[2] && isIPv4(server[2]) ? server[2] : undefined; // never refuse an alert for its label
  const details: Record<string, unknown> = { ...m.details, message_kind: m.kind, channel: 'email' };
  if (m.agentTime) details.agent_time = m.agentTime;
  const event = {
    schema_version: '1.0' as const,
    event_id: mailEventId(keyId, hostname, text),
    occurred_at: receivedAt.toISOString(),
    source: { product: 'ssh-monitor' as const, product_version: m.version ?? 'unknown' },
    host: {
      hostname,
      os_family: 'linux' as const,
      ...(display ? { display_name: display.slice(0, 256) } : {}),
      ...(ipv4 ? { ipv4 } : {}),
    },
    category: m.category,
    type: m.type,
    severity: m.severity,
    title: m.title.slice(0, 256),
    summary: m.summary.slice(0, 8192),
    details,
    raw: { format: 'text' as const, payload: text.slice(0, 16384) },
  };
  const v = validateEvent(event);
  if (!v.ok) return { ok: false, reason: v.errors.map((e) => `${e.pointer || '/'} ${e.message}`).join('; ') };
  return { ok: true, event: v.event };
}
