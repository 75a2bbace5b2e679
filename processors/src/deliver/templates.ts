// Message templates, one rendering per subject: a title (chat first line, e-mail subject), a plain
// text (Slack, e-mail text part) and an HTML body (Telegram's HTML subset, e-mail). Short lines that
// read well on a phone: what, where, who, when, and the id to look it up.
import type { NotificationSubject, NotifyRule } from '@watchpost/schemas';
import { escapeHtml } from '../shared/html.ts';

export interface Rendered {
  title: string;
  text: string;
  /** Telegram-safe HTML (b, i, code, pre, a only) */
  chatHtml: string;
  /** full HTML document body for e-mail */
  emailHtml: string;
}

const SEV_MARK: Record<string, string> = { critical: '🔴', high: '🟠', warning: '🟡', info: '🔵' };

function lines(title: string, fields: [string, string | undefined][], footer?: string): Rendered {
  const present = fields.filter((f): f is [string, string] => Boolean(f[1]));
  const text = [title, ...present.map(([k, v]) => `${k}: ${v}`), ...(footer ? ['', footer] : [])].join('\n');
  const chatHtml = [
    `<b>${escapeHtml(title)}</b>`,
    ...present.map(([k, v]) => `${escapeHtml(k)}: <code>${escapeHtml(v)}</code>`),
    ...(footer ? ['', escapeHtml(footer)] : []),
  ].join('\n');
  const emailHtml =
    `<h2 style="font-family:sans-serif">${escapeHtml(title)}</h2><table style="font-family:sans-serif;border-collapse:collapse">` +
    present
      .map(([k, v]) => `<tr><th align="left" style="padding:2px 12px 2px 0">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
      .join('') +
    `</table>${footer ? `<p style="font-family:sans-serif">${escapeHtml(footer)}</p>` : ''}`;
  return { title, text, chatHtml, emailHtml };
}

const RULE_LABEL: Partial<Record<NotifyRule, string>> = {
  login_success: 'Login',
  gateway_connection: 'Gateway',
  agent_lifecycle: 'Agent',
};

export function render(subject: NotificationSubject, rule: NotifyRule): Rendered {
  switch (subject.kind) {
    case 'event': {
      const label = RULE_LABEL[rule];
      const title =
        `${SEV_MARK[subject.severity] ?? ''} ${label ? `${label}: ` : ''}${subject.title} — ${subject.hostname}`.trim();
      const r = lines(title, [
        ['Severity', subject.severity],
        ['Type', subject.type],
        ['Host', subject.hostname],
        ['User', subject.actor_user],
        ['From', subject.source_ip],
        ['At', subject.occurred_at],
        ['Summary', subject.summary.slice(0, 1000)],
        ['Event', subject.event_id],
      ]);
      // Agent daily reports carry their own body: the text for chat and the e-mail text part, the
      // (sanitised) HTML for e-mail; without HTML the e-mail shows the text, escaped.
      if (subject.report_text) {
        const head = `${subject.title} — ${subject.hostname}`;
        return {
          title: r.title,
          text: `${head}\n\n${subject.report_text}`,
          chatHtml: `<b>${escapeHtml(head)}</b>\n${escapeHtml(subject.report_text)}`,
          emailHtml:
            subject.html ??
            `<h2 style="font-family:sans-serif">${escapeHtml(head)}</h2><pre style="font-family:sans-serif;white-space:pre-wrap">${escapeHtml(subject.report_text)}</pre>`,
        };
      }
      return subject.html ? { ...r, emailHtml: subject.html } : r;
    }
    case 'problem':
      return lines(`${SEV_MARK[subject.severity] ?? ''} Problem opened: ${subject.title} — ${subject.host}`.trim(), [
        ['Severity', subject.severity],
        ['Type', subject.type],
        ['Host', subject.host],
        ['Rule', subject.rule],
        ['Since', subject.created_at],
        ['Problem', subject.problem_id],
      ]);
    case 'daily_report':
      return {
        title: subject.title,
        text: subject.text,
        chatHtml: `<b>${escapeHtml(subject.title)}</b>\n${escapeHtml(subject.summary)}`,
        emailHtml: subject.html,
      };
    case 'login_lockout':
      return lines(
        '🔒 Login locked after repeated failures',
        [
          ['User', subject.username],
          ['Address', subject.address],
          ['At', subject.at],
          [
            'Not alerted',
            subject.not_alerted
              ? `${subject.not_alerted} more lockout${subject.not_alerted === 1 ? '' : 's'} since ${subject.not_alerted_since ?? '?'} (alert cap; see the audit log)`
              : undefined,
          ],
        ],
        subject.alerts_paused_until
          ? `Alert cap reached: further lockouts until ${subject.alerts_paused_until} are recorded (audit log) but not sent.`
          : undefined,
      );
    case 'test':
      return lines(
        '✅ Test notification from watchpost',
        [
          ['Requested by', subject.requested_by],
          ['At', subject.at],
        ],
        'If you can read this, the channel works.',
      );
  }
}
