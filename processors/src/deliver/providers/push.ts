// Push to mobile devices (Web Push with VAPID, payload encrypted aes128gcm, via the `web-push`
// library): one delivery fans out to every subscription of every enrolled, unrevoked device. TTL and
// urgency follow the severity; the delivery id is the Topic, so a push service replaces an undelivered
// repeat. A 404/410 removes the subscription; 429/5xx make the delivery retry, skipping the
// subscriptions an earlier attempt already reached. Endpoints pass the SSRF guard (NOTIFY_PUSH_ALLOW).
import https from 'node:https';
import webpush from 'web-push';
import { pushKeysProblem, pushTargets, removePushSubscription } from '@watchpost/core/devices';
import type { NotificationSubject } from '@watchpost/schemas';
import { DeliveryError } from '../errors.ts';
import { checkUrl, guardedLookup, hostListing } from '../../shared/ssrf.ts';
import type { Provider } from './provider.ts';

const TIMEOUT_MS = 10_000;

/** Seconds a push service keeps an undelivered message, and its urgency (RFC 8030). */
export function pushOptions(subject: NotificationSubject): { TTL: number; urgency: 'very-low' | 'low' | 'normal' | 'high' } {
  const severity = 'severity' in subject ? subject.severity : subject.kind === 'login_lockout' ? 'high' : 'warning';
  switch (severity) {
    case 'critical':
      return { TTL: 86_400, urgency: 'high' };
    case 'high':
      return { TTL: 43_200, urgency: 'high' };
    case 'warning':
      return { TTL: 21_600, urgency: 'normal' };
    default:
      return { TTL: 3_600, urgency: 'low' };
  }
}

function link(subject: NotificationSubject): string | undefined {
  if (subject.kind === 'event') return `/events/${subject.event_id}`;
  if (subject.kind === 'problem') return `/problems/${subject.problem_id}`;
  return undefined;
}

export const pushProvider: Provider = {
  channel: 'push',
  async send({ job, rendered, configs, env }) {
    if (!env) throw new DeliveryError('push needs the deliver role environment', true);
    const all = await pushTargets(env.pg);
    if (all.length === 0) throw new DeliveryError('no devices', true);
    const done = new Set(job.push_sent ?? []);
    const targets = all.filter((t) => !done.has(t.id));
    const vapid = await env.vapid();
    const allow = configs.push.allow;
    const { TTL, urgency } = pushOptions(job.subject);
    const payload = JSON.stringify({
      title: rendered.title.slice(0, 200),
      body: rendered.text.split('\n').slice(1, 6).join('\n').slice(0, 1000),
      severity: 'severity' in job.subject ? job.subject.severity : undefined,
      tag: job.delivery_id,
      url: link(job.subject),
    });
    const sent: number[] = [...done];
    let removed = 0;
    const retry: string[] = [];
    const final: string[] = [];
    for (const t of targets) {
      const host = new URL(t.endpoint).hostname;
      // Keys that can never encrypt (stored before registration checked them) are final for that one.
      const badKeys = pushKeysProblem({ p256dh: t.p256dh, auth: t.auth });
      if (badKeys) {
        final.push(`${host}: ${badKeys}`);
        continue;
      }
      try {
        await checkUrl(new URL(t.endpoint), allow);
        const agent = new https.Agent({ lookup: guardedLookup(allow, hostListing(host, allow)) });
        await webpush.sendNotification({ endpoint: t.endpoint, keys: { p256dh: t.p256dh, auth: t.auth } }, payload, {
          vapidDetails: { subject: vapid.subject, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
          TTL,
          urgency,
          topic: job.delivery_id,
          contentEncoding: 'aes128gcm',
          timeout: TIMEOUT_MS,
          agent,
        });
        sent.push(t.id);
      } catch (err) {
        const status = (err as { statusCode?: number }).statusCode;
        if (status === 404 || status === 410) {
          await removePushSubscription(env.pg, t.id);
          removed++;
        } else if (status === undefined && (err as Error).name === 'SsrfRefused')
          final.push(`${host}: ${(err as Error).message}`);
        else if (status !== undefined && status < 500 && status !== 429 && status !== 408) final.push(`${host}: ${status}`);
        else retry.push(`${host}: ${status ?? (err as Error).message}`);
      }
    }
    const summary = `push: ${sent.length - done.size} sent, ${removed} gone (removed), ${final.length} refused, ${retry.length} to retry, of ${all.length} subscriptions`;
    if (retry.length > 0) {
      await env.remember(sent);
      throw new DeliveryError(`${summary} (${retry.join('; ')})`, false);
    }
    if (sent.length === 0 && final.length > 0) throw new DeliveryError(`${summary} (${final.join('; ')})`, true);
    return summary;
  },
};
