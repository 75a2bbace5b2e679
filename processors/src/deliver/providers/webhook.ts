// Webhook: a JSON POST (body version 1, api/NOTIFICATIONS.md) signed with HMAC-SHA256 over
// `<timestamp>.<body>`, behind the SSRF guard. The delivery id header lets a receiver drop the rare
// repeat (a worker killed between the receiver's answer and recording it).
import { createHmac } from 'node:crypto';
import type { WebhookBodyV1 } from '@watchpost/schemas';
import { DeliveryError, checkHttpStatus } from '../errors.ts';
import { post } from '../http.ts';
import type { Provider } from './provider.ts';

export const SIGNATURE_HEADER = 'x-watchpost-signature';
export const TIMESTAMP_HEADER = 'x-watchpost-timestamp';
export const DELIVERY_HEADER = 'x-watchpost-delivery';

export function sign(secret: string, timestamp: string, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export const webhookProvider: Provider = {
  channel: 'webhook',
  async send({ job, configs }) {
    const cfg = configs.webhook;
    if (!cfg.url) throw new DeliveryError('no webhook URL configured', true);
    const payload: WebhookBodyV1 = {
      version: 1,
      delivery_id: job.delivery_id,
      rule: job.rule,
      sent_at: new Date().toISOString(),
      kind: job.subject.kind,
      subject: job.subject,
    };
    const body = JSON.stringify(payload);
    const ts = String(Math.floor(Date.now() / 1000));
    const headers: Record<string, string> = {
      'user-agent': 'watchpost-webhook/1',
      [DELIVERY_HEADER]: job.delivery_id,
      [TIMESTAMP_HEADER]: ts,
    };
    if (cfg.secret) headers[SIGNATURE_HEADER] = sign(cfg.secret, ts, body);
    const r = await post(cfg.url, body, { headers, timeoutMs: cfg.timeoutMs, guard: cfg.allow });
    if (r.status >= 300 && r.status < 400)
      throw new DeliveryError(`webhook answered ${r.status}: redirects are not followed`, true);
    checkHttpStatus('webhook', r.status, r.body);
    return `${r.status}`;
  },
};
