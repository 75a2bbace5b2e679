// Benchmark server process: `node server.ts ingest` (the real ingest app: Redis claims, Kafka
// acks=all, cached key check, outcome logs to /dev/null) or `node server.ts bare` (fastify, the same body
// parsing and compiled schema v1, answering 201 without Kafka or Redis). Prints {"port":N,"control":M}:
// `control` serves the server's time per request, its event-loop delay and ingest's pipeline waits (waits.ts).
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { createLogger } from '@watchpost/runtime';
import { applyHeapSettings, loadConfig } from '@watchpost/runtime';
import { createRedis } from '@watchpost/runtime';
import { createKafka } from '@watchpost/runtime';
import { createPostgres } from '@watchpost/runtime';
import { validateEvent } from '@watchpost/schemas';
import { buildIngestApp, createIngest } from '../src/app.ts';
import { createSmtpIntake } from '../src/smtp/intake.ts';
import { metrics } from '@watchpost/runtime';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOOP_HISTOGRAM, REQUEST_HISTOGRAM, snapshotHistograms, timeEventLoop, timeRequests, WAIT_HISTOGRAMS } from './waits.ts';

const mode = process.argv[2];
const config = loadConfig(process.env, 'ingest');
// The service's collector settings (ops/src/launcher.ts applies them at start), for the servers measured as the service.
if (mode !== 'bare') applyHeapSettings({ externalInGlobalLimit: config.gcExternalInGlobalLimit });
// Outcome lines are produced and written as in production (the service's logger, redaction
// included), but to /dev/null instead of the terminal.
const log = createLogger('info', 'bench', '/dev/null');
const closers: (() => Promise<unknown>)[] = [];
let app: FastifyInstance | undefined;
let smtpPort = 0;

if (mode === 'bare') {
  app = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.ingest.maxBodyBytes,
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.post(
    '/api/v1/events',
    {
      schema: {
        response: {
          201: { type: 'object', properties: { event_id: { type: 'string' }, received_at: { type: 'string' } } },
          422: { type: 'object', additionalProperties: true },
        },
      },
    },
    async (req, reply) => {
      const receivedAt = new Date().toISOString();
      let parsed: unknown;
      try {
        parsed = JSON.parse(req.body as string);
      } catch {
        return reply.code(422).send({ error: { code: 'INVALID_EVENT', message: 'malformed JSON' } });
      }
      const v = validateEvent(parsed);
      if (!v.ok)
        return reply.code(422).send({ error: { code: 'INVALID_EVENT', message: 'invalid', details: { errors: v.errors } } });
      return reply.code(201).send({ event_id: v.event.event_id, received_at: receivedAt });
    },
  );
  await app.ready();
} else if (mode === 'ingest') {
  const redis = createRedis(config.redisUrl);
  const pg = createPostgres(config.databaseUrl, 4);
  const kafka = createKafka(config.kafkaBrokers, 'bench-ingest');
  ({ app } = await buildIngestApp({ config, log, redis, pg, kafka }));
  closers.push(
    () => redis.quit(),
    () => pg.end(),
  );
} else if (mode === 'smtp') {
  // The SMTP intake (role smtp) on ingest's pipeline, with the certificate the bench made (STARTTLS).
  const redis = createRedis(config.redisUrl);
  const pg = createPostgres(config.databaseUrl, 4);
  const kafka = createKafka(config.kafkaBrokers, 'bench-smtp');
  const ingest = createIngest({ config, log, redis, pg, kafka });
  const intake = createSmtpIntake({ config: config.smtp, log, pipeline: ingest.pipeline, keys: ingest.keys, rate: ingest.rate });
  smtpPort = await intake.listen();
  closers.push(
    () => intake.close(),
    () => ingest.close(),
    () => redis.quit(),
    () => pg.end(),
  );
} else {
  throw new Error(`usage: server.ts bare|ingest|smtp`);
}

let port = smtpPort;
if (app) {
  timeRequests(app.server, metrics);
  timeEventLoop(metrics);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address();
  port = typeof addr === 'object' && addr ? addr.port : 0;
}
// The server's time per request and (ingest) its pipeline's wait histograms, for the bench to read around a
// window (bench/waits.ts), on a port of its own because the ingest app is sealed once built.
let control = 0;
if (app) {
  const server = createServer((_req, res) => {
    void snapshotHistograms(metrics, [...Object.values(WAIT_HISTOGRAMS), REQUEST_HISTOGRAM, LOOP_HISTOGRAM]).then((s) =>
      res.end(JSON.stringify(s)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  control = (server.address() as AddressInfo).port;
  server.unref();
}
process.stdout.write(`${JSON.stringify({ port, control })}\n`);
async function stop(): Promise<void> {
  // exit via return from main would skip nothing here; process.exit still writes --cpu-prof output.
  await app?.close();
  // BENCH_METRICS=1: the ingest histograms (micro-batch sizes, produce latency) on stderr.
  if (process.env.BENCH_METRICS) {
    const text = await metrics.metrics();
    process.stderr.write(
      text
        .split('\n')
        .filter((l) => l.startsWith('ingest_') && !l.includes('_bucket{le="+Inf"'))
        .join('\n') + '\n',
    );
  }
  for (const c of closers) await c().catch(() => {});
  process.exit(0);
}
process.once('SIGTERM', () => void stop());
