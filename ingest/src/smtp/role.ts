// The `smtp` role (also in `all`): the SMTP intake on its own pipeline to Kafka (claims, producer), as
// the ingest role has. Without SERVICE_SMTP_PORT it listens on nothing and says so.
import { createRedis, sameRedisTarget, type RoleStarter } from '@watchpost/runtime';
import { createIngest } from '../app.ts';
import { createSmtpIntake } from './intake.ts';

export const smtpRole: RoleStarter = async ({ config, log, clients }) => {
  if (config.smtp.port === null) {
    log.info('smtp intake off: SERVICE_SMTP_PORT is not set');
    return {};
  }
  const ownClaimsRedis = sameRedisTarget(config.claimsRedis, config.redis)
    ? null
    : createRedis(config.claimsRedis, { timeouts: config.redisTimeouts });
  const ingest = createIngest({ config, log, redis: ownClaimsRedis ?? clients.redis, pg: clients.pg, kafka: clients.kafka });
  const intake = createSmtpIntake({ config: config.smtp, log, pipeline: ingest.pipeline, keys: ingest.keys, rate: ingest.rate });
  const port = await intake.listen();
  log.info(
    { port, starttls: Boolean(config.smtp.tlsCertFile), insecure_auth: config.smtp.allowInsecureAuth },
    'smtp intake listening',
  );
  return {
    checks: { kafka: () => ingest.sink.ready() },
    async close() {
      await intake.close();
      await ingest.close();
      await ownClaimsRedis?.quit().catch(() => ownClaimsRedis.disconnect());
    },
  };
};
