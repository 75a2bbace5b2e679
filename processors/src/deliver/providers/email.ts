// E-mail over SMTP with nodemailer: TLS from the start (`tls`, port 465), STARTTLS required
// (`starttls`, port 587) or plain (`none`, for a relay on the local network). HTML and text parts.
// A password is never sent in the clear to another machine: with `none` it goes only to a loopback relay.
// The server passes the webhooks' SSRF guard (../../shared/ssrf.ts) before anything is sent: its name is resolved
// and checked once, and the connection goes to the checked address (the name stays the TLS server name
// the certificate is verified against). A server an admin sets may be public or private; loopback,
// link-local (the metadata service), unspecified, multicast and reserved addresses only when
// NOTIFY_EMAIL_ALLOW (or SMTP_HOST, the operator's own server) names them.
import { isIP } from 'node:net';
import nodemailer from 'nodemailer';
import { isLoopbackHost, type EmailConfig } from '@watchpost/core/notify';
import { DeliveryError } from '../errors.ts';
import { hostListing, resolveAllowed, SsrfRefused } from '../../shared/ssrf.ts';
import type { Provider } from './provider.ts';

const TIMEOUT_MS = 20_000;

/** The checked address to connect to for the configured server; a refusal is final. */
export async function smtpAddress(cfg: Pick<EmailConfig, 'host' | 'allow'>): Promise<string> {
  const host = cfg.host ?? '';
  const allow = cfg.allow ?? { environment: [], admin: [] };
  try {
    return (await resolveAllowed(host, allow, hostListing(host, allow) ?? 'admin')).address;
  } catch (err) {
    throw new DeliveryError(`SMTP: ${(err as Error).message}`, err instanceof SsrfRefused);
  }
}

function transport(cfg: EmailConfig, address: string) {
  const name = cfg.host?.replace(/^\[|\]$/g, '') ?? '';
  return nodemailer.createTransport({
    host: address,
    // SNI and the certificate check use the configured name, not the address connected to.
    ...(isIP(name) ? {} : { servername: name }),
    port: cfg.port,
    secure: cfg.security === 'tls',
    requireTLS: cfg.security === 'starttls',
    ignoreTLS: cfg.security === 'none',
    ...(cfg.user ? { auth: { user: cfg.user, pass: cfg.password ?? '' } } : {}),
    tls: { rejectUnauthorized: cfg.verifyTls },
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
  });
}

export const emailProvider: Provider = {
  channel: 'email',
  async send({ job, rendered, configs }) {
    const cfg = configs.email;
    if (!cfg.host) throw new DeliveryError('no SMTP host configured', true);
    // The environment's password was kept from this server: say why rather than log in without it.
    if (cfg.user && cfg.password === undefined && cfg.passwordWithheld)
      throw new DeliveryError(`SMTP: ${cfg.passwordWithheld}`, true);
    if (cfg.user && cfg.password && cfg.security === 'none' && !isLoopbackHost(cfg.host))
      throw new DeliveryError(
        `SMTP: the password is never sent over security "none" to ${cfg.host} (only to a loopback relay); use starttls or tls`,
        true,
      );
    const address = await smtpAddress(cfg);
    // Checked again on the address: a name that is not "localhost" may still resolve to another machine.
    if (cfg.user && cfg.password && cfg.security === 'none' && !isLoopbackHost(address))
      throw new DeliveryError(
        `SMTP: the password is never sent over security "none" to ${cfg.host} (it resolves to ${address}, not a loopback relay); use starttls or tls`,
        true,
      );
    const t = transport(cfg, address);
    try {
      const info = await t.sendMail({
        from: cfg.from,
        to: job.destination,
        subject: rendered.title,
        text: rendered.text,
        html: `<!doctype html><html><body>${rendered.emailHtml}</body></html>`,
        // The same Message-ID on a repeat (a worker killed after the server accepted it) lets mail
        // stores and clients that drop duplicate ids show it once.
        messageId: `<${job.delivery_id}@watchpost.invalid>`,
        headers: { 'X-Watchpost-Delivery': job.delivery_id },
      });
      return `smtp ${info.response}`.slice(0, 300);
    } catch (err) {
      const e = err as Error & { responseCode?: number; code?: string };
      // 5xx SMTP replies (unknown mailbox, refused sender, auth failed) are permanent; 4xx and network errors are not.
      const final = (e.responseCode !== undefined && e.responseCode >= 500) || e.code === 'EAUTH';
      throw new DeliveryError(`SMTP: ${e.message}`, final);
    } finally {
      t.close();
    }
  },
};
