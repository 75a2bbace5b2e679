// One outbound HTTP POST with a deadline; the answer's body is read up to 4 KiB (enough to report).
import http from 'node:http';
import https from 'node:https';
import { checkUrl, guardedLookup, hostListing, type Allow } from '../shared/ssrf.ts';
import { DeliveryError } from './errors.ts';

export interface PostOptions {
  headers?: Record<string, string>;
  timeoutMs: number;
  /** SSRF guard with these allow lists (a bare list: the environment's); undefined: no guard. */
  guard?: Allow;
}

export async function post(url: string, body: string, opts: PostOptions): Promise<{ status: number; body: string }> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new DeliveryError(`not a valid URL`, true);
  }
  if (opts.guard)
    await checkUrl(u, opts.guard).catch((err: Error) => {
      throw new DeliveryError(err.message, true);
    });
  const mod = u.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let answered = false;
    // The deadline is checked after the pending I/O: when the process was paused (GC, VM stall,
    // SIGSTOP) the overdue timer fires first on waking, while the answer may already wait in the
    // socket; a repeat sent because of that false timeout would reach the receiver twice.
    const deadline = setTimeout(
      () =>
        setImmediate(() => {
          if (!answered) req.destroy(Object.assign(new Error('timeout'), { name: 'TimeoutError' }));
        }),
      opts.timeoutMs,
    );
    const req = mod.request(
      u,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...opts.headers },
        ...(opts.guard ? { lookup: guardedLookup(opts.guard, hostListing(u.hostname, opts.guard)) } : {}),
      },
      (res) => {
        answered = true;
        // The body of an answer that began in time has the same deadline again.
        clearTimeout(deadline);
        const bodyDeadline = setTimeout(
          () => setImmediate(() => res.destroy(new DeliveryError(`no answer within ${opts.timeoutMs} ms`, false))),
          opts.timeoutMs,
        );
        res.on('close', () => clearTimeout(bodyDeadline));
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < 4096) chunks.push(c);
          size += c.length;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8').slice(0, 4096) }),
        );
        res.on('error', reject);
      },
    );
    req.on('close', () => {
      if (!answered) clearTimeout(deadline);
    });
    req.on('error', (err) => {
      if (err.name === 'SsrfRefused') reject(new DeliveryError(err.message, true));
      else if (err.name === 'AbortError' || err.name === 'TimeoutError')
        reject(new DeliveryError(`no answer within ${opts.timeoutMs} ms`, false));
      else reject(new DeliveryError(`${err.message}`, false));
    });
    req.end(body);
  });
}
