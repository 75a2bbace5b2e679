// Child process of bench:correlate: runs one correlator on the configured topic until killed.
// argv[2] = 'set' (the correlate role as deployed) or 'per-event' (the landed per-event correlator,
// per-event-correlator.ts, on the same batch consumer). Prints "ready" once started.
import { Clients, createLogger, loadConfig } from '@watchpost/runtime';
import { startBatchConsumer } from '../src/kafka/batch-consumer.ts';
import { correlateRole } from '../src/correlate/index.ts';
import { processBatch } from './per-event-correlator.ts';
import type { CorrelateEnvelope } from '../src/correlate/rules.ts';

const mode = process.argv[2];
const config = loadConfig(process.env);
const log = createLogger('warn', 'bench');
const clients = new Clients(config);
const settings = {
  problemCorrelationWindowMinutes: config.problemCorrelationWindowMinutes,
  problemMinSeverity: config.problemMinSeverity,
};
if (mode === 'set') await correlateRole({ config, log, clients });
else
  await startBatchConsumer({
    kafka: clients.kafka,
    groupId: `${config.consumerGroups.correlate}-per-event`,
    topic: config.topics.events,
    deadLetterTopic: config.topics.deadLetter,
    name: 'correlate',
    maxBatchSize: config.correlate.batchSize,
    maxBatchMs: config.correlate.batchMs,
    log,
    async handle(batch) {
      await processBatch(
        clients.pg,
        batch.map((m) => m.envelope as CorrelateEnvelope),
        settings,
        () => new Date(),
      );
    },
  });
console.log('ready');
// A plain exit on SIGTERM, so that --cpu-prof (BENCH_PROFILE) writes its profile.
process.on('SIGTERM', () => process.exit(0));
