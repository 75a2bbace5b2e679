import type { Config } from '../config/config.ts';
import { createClickhouse, type ClickHouseClient } from './clickhouse.ts';
import { createKafka, Kafka } from './kafka.ts';
import { createPostgres, type Pool } from './postgres.ts';
import { createRedis, type Redis } from './redis.ts';

/** One of each client per process, created on first use, closed once. */
export class Clients {
  private config: Config;
  private _pg?: Pool;
  private _redis?: Redis;
  private _ch?: ClickHouseClient;
  private _kafka?: Kafka;

  constructor(config: Config) {
    this.config = config;
  }

  get pg(): Pool {
    return (this._pg ??= createPostgres(this.config.databaseUrl, 20, this.config.databaseTimeouts));
  }
  get redis(): Redis {
    return (this._redis ??= createRedis(this.config.redis, { timeouts: this.config.redisTimeouts }));
  }
  /** A new connection for BullMQ (blocking commands need their own). */
  bullmqConnection(): Redis {
    return createRedis(this.config.redis, { forBullmq: true, timeouts: this.config.redisTimeouts });
  }
  get clickhouse(): ClickHouseClient {
    return (this._ch ??= createClickhouse(this.config.clickhouseUrl, this.config.clickhouseDatabase));
  }
  get kafka(): Kafka {
    return (this._kafka ??= createKafka(this.config.kafkaBrokers, `watchpost-${this.config.role}`));
  }

  checks() {
    return {
      postgres: async () => (await this.pg.query('SELECT 1')).rowCount === 1,
      redis: async () => (await this.redis.ping()) === 'PONG',
      clickhouse: async () => (await this.clickhouse.ping()).success,
    };
  }

  async close(): Promise<void> {
    await Promise.allSettled([this._pg?.end(), this._redis?.quit(), this._ch?.close()]);
  }
}
