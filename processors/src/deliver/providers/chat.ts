// Chat: Telegram Bot API `sendMessage` (HTML parse mode; base URL configurable for a proxy or a
// self-hosted Bot API server) and Slack-compatible incoming webhooks (Slack, Mattermost and
// Rocket.Chat accept the same `{"text": ...}` body). Both go through the SSRF guard, as webhooks do:
// a hook URL is a webhook in all but name, and test-send shows what the endpoint answered.
import { sliceWhole } from '@watchpost/core/pg-safe';
import { DeliveryError, checkHttpStatus } from '../errors.ts';
import { post } from '../http.ts';
import type { Provider } from './provider.ts';

const TELEGRAM_MAX = 4096;
const TIMEOUT_MS = 10_000;

/** At most `max` UTF-16 units, never half a surrogate pair, with an ellipsis when cut. */
function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${sliceWhole(text, max - 1)}…`;
}

export const chatProvider: Provider = {
  channel: 'chat',
  async send({ job, rendered, configs }) {
    const dest = configs.chat.destinations.find((d) => d.id === job.destination);
    if (!dest) throw new DeliveryError(`chat destination "${job.destination}" is no longer configured`, true);
    const daily = job.subject.kind === 'daily_report';
    if (dest.kind === 'telegram') {
      const { token, apiBase } = configs.chat.telegram;
      if (!token) throw new DeliveryError('no Telegram bot token configured', true);
      // Cutting HTML can leave an open tag or half an entity, which Telegram refuses (a final 400):
      // a message too long goes as plain text, cut on a character boundary.
      const fits = rendered.chatHtml.length <= TELEGRAM_MAX;
      const text = fits ? rendered.chatHtml : cutText(rendered.text, TELEGRAM_MAX);
      const body = JSON.stringify({
        chat_id: dest.chatId,
        text,
        ...(fits ? { parse_mode: 'HTML' } : {}),
        disable_web_page_preview: true,
      });
      const r = await post(`${apiBase.replace(/\/$/, '')}/bot${token}/sendMessage`, body, {
        timeoutMs: TIMEOUT_MS,
        guard: configs.chat.allow,
      });
      checkHttpStatus('Telegram', r.status, r.body);
      let id = '';
      try {
        id = String((JSON.parse(r.body) as { result?: { message_id?: number } }).result?.message_id ?? '');
      } catch {
        // the answer is reported as is
      }
      return `telegram ${r.status}${id ? ` message_id=${id}` : ''}`;
    }
    if (!dest.url) throw new DeliveryError(`chat destination "${dest.id}" has no webhook URL`, true);
    const subject = job.subject;
    const text = daily && subject.kind === 'daily_report' ? `*${subject.title}*\n${subject.summary}` : rendered.text;
    // Slack escapes only &, < and > in text.
    const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const r = await post(dest.url, JSON.stringify({ text: escaped }), { timeoutMs: TIMEOUT_MS, guard: configs.chat.allow });
    checkHttpStatus('chat webhook', r.status, r.body);
    return `webhook ${r.status} ${r.body.slice(0, 100)}`.trim();
  },
};
