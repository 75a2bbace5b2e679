// Live streams are capped per user (429 TOO_MANY_STREAMS past SERVICE_STREAM_MAX_PER_USER, a closed
// stream frees its slot) and per device (its oldest stream makes room), counted per API process.
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createApiHarness, login, openSse, type ApiHarness, type SseClient } from '@watchpost/testkit/api';

let h: ApiHarness;
let base: string;
const open: SseClient[] = [];

beforeAll(async () => {
  h = await createApiHarness('stream_caps', { env: { SERVICE_STREAM_MAX_PER_DEVICE: '2' } });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}/api/v1/stream/events`;
});
afterAll(async () => {
  for (const c of open) c.close();
  await h?.close();
});

const stream = async (token: string) => {
  const c = await openSse(base, { authorization: `Bearer ${token}` });
  open.push(c);
  if (c.status === 200) await c.waitFor((f) => f.event === 'ready');
  return c;
};
const until = async (cond: () => Promise<boolean> | boolean, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('live stream caps', () => {
  it('the 11th stream of a user gets 429 TOO_MANY_STREAMS; closing one frees a slot; other users are not affected', async () => {
    const u = await addUser(h, 'tabs', 'monitor');
    // Two sessions of one user (two browsers): the cap is the user's.
    const [a, b] = await Promise.all([login(h, 'tabs', u.password), login(h, 'tabs', u.password)]);
    const tokens = [a.json().access_token as string, b.json().access_token as string];
    const ten: SseClient[] = [];
    for (let i = 0; i < 10; i++) ten.push(await stream(tokens[i % 2]!));
    expect(ten.map((c) => c.status)).toEqual(Array(10).fill(200));
    const eleventh = await fetch(base, { headers: { authorization: `Bearer ${tokens[0]}` } });
    expect(eleventh.status).toBe(429);
    const body = (await eleventh.json()) as { error: { code: string; message: string; details: unknown } };
    expect(body.error.code).toBe('TOO_MANY_STREAMS');
    expect(body.error.message).toMatch(/10 live streams/);
    expect(body.error.details).toEqual({ scope: 'user', limit: 10 });
    // another user streams meanwhile
    const v = await addUser(h, 'other', 'monitor');
    expect((await stream((await login(h, 'other', v.password)).json().access_token)).status).toBe(200);
    // one tab closed: its slot is free again
    ten[3]!.close();
    await until(async () => {
      const c = await stream(tokens[1]!);
      if (c.status === 200) return true;
      c.close();
      return false;
    });
    const again = await fetch(base, { headers: { authorization: `Bearer ${tokens[1]}` } });
    expect(again.status).toBe(429);
    for (const c of ten) c.close();
  });

  it('a device holds at most SERVICE_STREAM_MAX_PER_DEVICE streams: a new one ends its oldest', async () => {
    const admin = await addUser(h, 'root', 'admin');
    const tok = (await login(h, 'root', admin.password)).json().access_token as string;
    const code = (
      await h.app.inject({
        method: 'POST',
        url: '/api/v1/devices/enrollment-codes',
        headers: { authorization: `Bearer ${tok}` },
        payload: {},
      })
    ).json().code as string;
    const phone = (
      await h.app.inject({
        method: 'POST',
        url: '/api/v1/mobile/enroll',
        payload: { code, device_uuid: randomUUID(), name: 'phone', platform: 'android' },
      })
    ).json().access_token as string;
    const first = await stream(phone);
    const second = await stream(phone);
    expect([first.status, second.status]).toEqual([200, 200]);
    // a phone that changed networks reconnects while its old connection still looks open
    const third = await stream(phone);
    expect(third.status).toBe(200);
    await until(() => first.endedAt > 0);
    expect(second.endedAt).toBe(0);
    expect(third.endedAt).toBe(0);
  });
});
