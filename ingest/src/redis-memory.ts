// Memory of each Redis the ingest role uses (the main one, and the claims Redis when it is another):
// used_memory and maxmemory as gauges, and a warning (a log line when it starts, and a `down` check in
// /health: status "degraded") while used memory is above SERVICE_REDIS_MEMORY_WARN_RATIO of maxmemory.
// A full Redis refuses new claims (noeviction) and ingest answers 503: the warning comes before that.
import type { Redis } from 'ioredis';
import { gauge, type Logger } from '@watchpost/runtime';

const usedGauge = gauge('watchpost_redis_used_memory_bytes', 'Redis used_memory (INFO memory)', ['redis']);
const maxGauge = gauge('watchpost_redis_maxmemory_bytes', 'Redis maxmemory (0: no limit)', ['redis']);
const ratioGauge = gauge('watchpost_redis_memory_ratio', 'Redis used_memory / maxmemory (0 without a limit)', ['redis']);

/** used_memory and maxmemory from an INFO memory answer. */
export function parseMemoryInfo(info: string): { used: number; max: number } {
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
  return { used: field('used_memory'), max: field('maxmemory') };
}

export interface RedisMemoryWatch {
  /** Reads every Redis once now (tests; the timer does it every intervalMs). */
  poll(): Promise<void>;
  /** Health checks: `<name>_redis_memory`, false while above the ratio (read afresh on each call). */
  checks: Record<string, () => Promise<boolean>>;
  stop(): void;
}

export function watchRedisMemory(opts: {
  redises: Record<string, Redis>;
  warnRatio: number;
  intervalMs: number;
  log: Logger;
}): RedisMemoryWatch {
  const filling = new Map<string, boolean>();
  const pollOne = async (name: string, redis: Redis) => {
    let m: { used: number; max: number };
    try {
      m = parseMemoryInfo(await redis.info('memory'));
    } catch {
      return; // unreachable: the redis check and the requests' 503 say so
    }
    usedGauge.set({ redis: name }, m.used);
    maxGauge.set({ redis: name }, m.max);
    const ratio = m.max > 0 ? m.used / m.max : 0;
    ratioGauge.set({ redis: name }, ratio);
    const over = ratio > opts.warnRatio;
    if (over && !filling.get(name))
      opts.log.warn(
        {
          redis: name,
          used_memory: m.used,
          maxmemory: m.max,
          ratio: Math.round(ratio * 1000) / 1000,
          warn_ratio: opts.warnRatio,
        },
        'Redis memory is filling: when it is full, ingest answers 503 (raise maxmemory or lower SERVICE_INGEST_CLAIM_TTL_DAYS)',
      );
    else if (!over && filling.get(name)) opts.log.info({ redis: name, ratio }, 'Redis memory back below the warning ratio');
    filling.set(name, over);
  };
  const poll = async () => {
    await Promise.all(Object.entries(opts.redises).map(([name, r]) => pollOne(name, r)));
  };
  const timer = setInterval(() => void poll(), opts.intervalMs);
  timer.unref();
  void poll();
  // A /health request reads afresh (INFO is cheap), so the answer is never a poll interval old.
  const checks = Object.fromEntries(
    Object.entries(opts.redises).map(([name, r]) => [
      `${name}_redis_memory`,
      async () => {
        await pollOne(name, r);
        return !filling.get(name);
      },
    ]),
  );
  return { poll, checks, stop: () => clearInterval(timer) };
}
