// One Prometheus registry per process; every role registers its metrics here and the launcher
// serves them at GET /metrics.
import client from 'prom-client';

export const metrics = new client.Registry();
client.collectDefaultMetrics({ register: metrics });

export function counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []) {
  return (
    (metrics.getSingleMetric(name) as client.Counter<L>) ?? new client.Counter({ name, help, labelNames, registers: [metrics] })
  );
}

export function gauge<L extends string>(name: string, help: string, labelNames: readonly L[] = []) {
  return (metrics.getSingleMetric(name) as client.Gauge<L>) ?? new client.Gauge({ name, help, labelNames, registers: [metrics] });
}

export function histogram<L extends string>(name: string, help: string, labelNames: readonly L[] = [], buckets?: number[]) {
  return (
    (metrics.getSingleMetric(name) as client.Histogram<L>) ??
    new client.Histogram({ name, help, labelNames, registers: [metrics], ...(buckets ? { buckets } : {}) })
  );
}
