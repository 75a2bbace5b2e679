import type { Config } from '@watchpost/runtime';

/**
 * Consumer group ids carry the topic prefix (KAFKA_TOPIC_PREFIX): two deployments or two tests
 * sharing a broker never join each other's group.
 */
export function consumerGroupId(config: Pick<Config, 'topics'>, base: string): string {
  const prefix = config.topics.events.slice(0, -'events.v1'.length);
  return `${prefix}${base}`;
}
