// A test-send per channel (admin): queued at the head of the channel's delivery queue for the deliver
// role, which alone talks to providers; the API waits for its answer (runtime's request-reply).
// Registered by ./channels.ts next to each channel's settings.
import type { FastifyInstance } from 'fastify';
import { createQueue, createRedis, createRequestReply, type RequestReply } from '@watchpost/runtime';
import {
  DELIVERY_QUEUES,
  NOTIFY_CHANNELS,
  TEST_SEND_JOB,
  type NotifyChannel,
  type TestSendJob,
  type TestSendResult,
} from '@watchpost/schemas';
import { auditCaller } from '../shared/audit.ts';
import { ApiError } from '../../errors.ts';
import { channelEnum, str, tags } from './schemas.ts';

type TestSends = RequestReply<TestSendJob, TestSendResult, typeof TEST_SEND_JOB>;

/** Opens the queues once; returns what registers one channel's test-send route. */
export function testSendRoutes(app: FastifyInstance): (channel: NotifyChannel) => void {
  const { pg, config } = app.deps;
  const connection = createRedis(config.redis, { forBullmq: true, timeouts: config.redisTimeouts });
  const queues = NOTIFY_CHANNELS.map((c) =>
    createQueue<TestSendJob, TestSendResult, typeof TEST_SEND_JOB>(config, DELIVERY_QUEUES[c], connection),
  );
  const replies = Object.fromEntries(NOTIFY_CHANNELS.map((c, i) => [c, createRequestReply(queues[i]!, connection)])) as Record<
    NotifyChannel,
    TestSends
  >;
  app.addHook('onClose', async () => {
    await Promise.all(Object.values(replies).map((r) => r.close()));
    await Promise.all(queues.map((q) => q.close()));
    await connection.quit().catch(() => {});
  });

  return (channel) => {
    app.post(
      `/settings/notifications/channels/${channel}/test`,
      {
        config: { access: 'admin' },
        schema: {
          operationId: `testNotificationChannel_${channel}`,
          tags,
          summary: `Send a test message through the ${channel} channel`,
          description:
            "Queued for the deliver role, which sends to every destination of the saved configuration; answers each provider's answer. 504 when no deliver worker answered in NOTIFY_TEST_WAIT_MS.",
          response: {
            200: {
              type: 'object',
              required: ['channel', 'results'],
              properties: {
                channel: channelEnum,
                results: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['destination', 'ok', 'response'],
                    properties: { destination: str, ok: { type: 'boolean' }, response: str },
                  },
                },
              },
            },
          },
        },
      },
      async (req) => {
        const at = new Date().toISOString();
        const r = await replies[channel].request(
          TEST_SEND_JOB,
          { kind: 'test_send', channel, requested_by: req.user!.username, at },
          {
            waitMs: config.notify.testWaitMs,
            // At the head of the queue: a backlog of deliveries does not hold up the answer.
            job: { lifo: true, removeOnComplete: 100, removeOnFail: 100, attempts: 1 },
          },
        );
        await auditCaller(pg, req, `notify_test.${channel}`, { details: {} });
        if (r.status === 'timed_out')
          throw new ApiError(
            504,
            'TEST_TIMEOUT',
            `no deliver worker answered within ${config.notify.testWaitMs} ms (is a process running SERVICE_ROLE=deliver?)`,
          );
        if (r.status === 'failed') throw new Error(r.reason);
        return r.value;
      },
    );
  };
}
