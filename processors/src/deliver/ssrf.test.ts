// The webhook SSRF guard (../shared/ssrf.ts, its verdicts tested there) as the deliveries' HTTP client
// applies it: a refused URL is a final failure, never a connection; an allow-listed one is connected to.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from './http.ts';
import { DeliveryError } from './errors.ts';

let port = 0;
let hits = 0;
const server = createServer((_req, res) => {
  hits++;
  res.end('ok');
});
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('SSRF guard', () => {
  it('refuses before connecting: literal addresses, names resolving to loopback, metadata, other schemes', async () => {
    const before = hits;
    for (const url of [
      `http://127.0.0.1:${port}/x`,
      `http://localhost:${port}/x`,
      `http://[::ffff:127.0.0.1]:${port}/x`,
      'http://169.254.169.254/latest/meta-data/',
      `http://2130706433:${port}/x`, // 127.0.0.1 as a decimal host
    ]) {
      const err = await post(url, '{}', { timeoutMs: 2000, guard: [] }).catch((e: unknown) => e);
      expect(err, url).toBeInstanceOf(DeliveryError);
      expect((err as DeliveryError).final, url).toBe(true);
      expect((err as Error).message, url).toMatch(/SSRF guard/);
    }
    expect(hits).toBe(before);
    const ftp = await post('ftp://example.org/x', '{}', { timeoutMs: 2000, guard: [] }).catch((e: unknown) => e);
    expect((ftp as Error).message).toMatch(/scheme ftp: is not allowed/);
  });

  it('refuses a loopback target named or resolved through a saved list, before connecting', async () => {
    const before = hits;
    for (const [url, list] of [
      [`http://127.0.0.1:${port}/x`, ['0.0.0.0/0']],
      [`http://localhost:${port}/x`, ['localhost']],
    ] as const) {
      const err = await post(url, '{}', { timeoutMs: 2000, guard: { environment: [], admin: [...list] } }).catch(
        (e: unknown) => e,
      );
      expect(err, url).toBeInstanceOf(DeliveryError);
      expect((err as Error).message, url).toMatch(/SSRF guard: .*opens private addresses only/);
    }
    expect(hits).toBe(before);
  });

  it('connects to an allow-listed address or host name', async () => {
    expect((await post(`http://127.0.0.1:${port}/x`, '{}', { timeoutMs: 2000, guard: ['127.0.0.1'] })).status).toBe(200);
    expect((await post(`http://localhost:${port}/x`, '{}', { timeoutMs: 2000, guard: ['localhost'] })).status).toBe(200);
  });
});
