// The API waits for a worker's job through the real Redis with a real BullMQ worker: its answer, its
// failure (even one whose message says "timed out"), no answer in time, an answer that came before the
// wait, many waits on one reader, and a Redis that goes away mid-wait.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { Worker } from 'bullmq';
import { NOTIFICATIONS_QUEUE } from '@watchpost/schemas';
import { startTcpProxy, testConfig, type TcpProxy } from '@watchpost/testkit';
import type { Config } from './config/config.ts';
import { createRedis } from './clients/redis.ts';
import { createQueue, createWorker } from './queues.ts';
import { createRequestReply } from './request-reply.ts';

type Data = { n: number; sleepMs?: number; fail?: string };
type Result = { doubled: number };

let config: Config;
const closers: (() => Promise<unknown>)[] = [];

function setUp(redisUrl = config.redisUrl) {
  const connection = createRedis(redisUrl, { forBullmq: true });
  const queue = createQueue<Data, Result>(config, NOTIFICATIONS_QUEUE, connection);
  // The queue's own connection errors while Redis is away are the caller's, not under test here.
  queue.on('error', () => {});
  const rr = createRequestReply(queue, connection);
  closers.push(
    () => rr.close(),
    () => queue.close(),
    async () => connection.disconnect(),
  );
  return { connection, queue, rr };
}

function startWorker(): Worker<Data, Result> {
  const connection = createRedis(config.redisUrl, { forBullmq: true });
  const worker = createWorker<Data, Result>(
    config,
    NOTIFICATIONS_QUEUE,
    async (job) => {
      if (job.data.sleepMs) await new Promise((r) => setTimeout(r, job.data.sleepMs));
      if (job.data.fail) throw new Error(job.data.fail);
      return { doubled: job.data.n * 2 };
    },
    connection,
  );
  closers.push(
    () => worker.close(),
    async () => connection.disconnect(),
  );
  return worker;
}

beforeAll(() => {
  config = testConfig('request_reply');
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});
afterAll(async () => {
  const { queue } = setUp();
  await queue.obliterate({ force: true });
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

it("answers the worker's return value, and its failure with the worker's reason", async () => {
  const { rr } = setUp();
  startWorker();
  expect(await rr.request('job', { n: 21 }, { waitMs: 10_000 })).toMatchObject({
    status: 'completed',
    value: { doubled: 42 },
  });
  // A worker's message that says "timed out" is still a failure, not a time-out.
  expect(await rr.request('job', { n: 1, fail: 'provider timed out' }, { waitMs: 10_000 })).toMatchObject({
    status: 'failed',
    reason: 'provider timed out',
  });
});

it('answers timed_out when no worker finishes the job in time, and the job stays queued', async () => {
  const { rr, queue } = setUp();
  const started = Date.now();
  const reply = await rr.request('job', { n: 1 }, { waitMs: 300 });
  expect(reply.status).toBe('timed_out');
  expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  expect(Date.now() - started).toBeLessThan(3000);
  expect(await queue.getJobState(reply.jobId)).toBe('waiting');
  await queue.remove(reply.jobId);
});

it('a job that finished before the wait (same job id added again) answers at once', async () => {
  const { rr } = setUp();
  startWorker();
  const opts = { waitMs: 10_000, job: { jobId: 'fixed-1' } };
  expect(await rr.request('job', { n: 2 }, opts)).toMatchObject({ status: 'completed', value: { doubled: 4 } });
  // BullMQ keeps the finished job under its id: no new run, and no event for this wait to catch.
  const started = Date.now();
  expect(await rr.request('job', { n: 99 }, opts)).toMatchObject({ status: 'completed', value: { doubled: 4 } });
  expect(Date.now() - started).toBeLessThan(2000);
});

it('many concurrent waits share one reader and each gets its own answer', async () => {
  const { rr, connection } = setUp();
  startWorker();
  const replies = await Promise.all(Array.from({ length: 30 }, (_, n) => rr.request('job', { n }, { waitMs: 10_000 })));
  expect(replies.map((r) => (r.status === 'completed' ? r.value.doubled : r.status))).toEqual(
    Array.from({ length: 30 }, (_, n) => n * 2),
  );
  // BullMQ names each QueueEvents connection `<prefix>:<base64 queue name>:qe`.
  const name = `${config.queuePrefix}:${Buffer.from(NOTIFICATIONS_QUEUE).toString('base64')}:qe`;
  const clients = (await connection.client('LIST')) as string;
  expect(clients.split('\n').filter((line) => line.includes(` name=${name} `))).toHaveLength(1);
});

it('close() ends pending waits as timed_out and refuses new requests', async () => {
  const { rr } = setUp();
  const waiting = rr.request('job', { n: 1 }, { waitMs: 60_000 });
  await new Promise((r) => setTimeout(r, 200));
  await rr.close();
  expect((await waiting).status).toBe('timed_out');
  await expect(rr.request('job', { n: 1 }, { waitMs: 10 })).rejects.toThrow(/closed/);
});

it('Redis going away mid-wait: the wait ends timed_out, close() returns, nothing rejects unhandled', async () => {
  const url = new URL(config.redisUrl);
  const proxy: TcpProxy = await startTcpProxy(url.hostname, Number(url.port));
  closers.push(() => proxy.close());
  const { rr } = setUp(`redis://127.0.0.1:${proxy.port}`);
  const unhandled: unknown[] = [];
  const onUnhandled = (err: unknown) => unhandled.push(err);
  process.on('unhandledRejection', onUnhandled);
  try {
    const waiting = rr.request('job', { n: 1, sleepMs: 5000 }, { waitMs: 1500 });
    await new Promise((r) => setTimeout(r, 300));
    proxy.cut();
    const reply = await waiting;
    expect(reply.status).toBe('timed_out');
    // Closing does not hang on the reader's connection, which can no longer reach Redis.
    const closing = Date.now();
    await rr.close();
    expect(Date.now() - closing).toBeLessThan(5000);
    await new Promise((r) => setTimeout(r, 200));
    expect(unhandled).toEqual([]);
  } finally {
    process.off('unhandledRejection', onUnhandled);
    proxy.restore();
  }
});
