// Kafka topic and Redis channel names. A deployment (or a test) may prefix every name
// (KAFKA_TOPIC_PREFIX); runtime's config builds the prefixed names once.
export const TOPIC_BASES = {
  /** Accepted events (key = hostname, value = EventEnvelope). */
  events: 'events.v1',
  /** Messages a processor could not handle (value = DeadLetter). */
  deadLetter: 'events.v1.dlq',
  /** New and reopened problems (key = problem id, value = ProblemMessage). */
  problems: 'problems.v1',
} as const;

export type TopicKey = keyof typeof TOPIC_BASES;
export type Topics = Record<TopicKey, string>;

/** Redis pub/sub channel of the live dashboard messages (value = LiveMessage). */
export const LIVE_CHANNEL_BASE = 'live.v1';

export function topicNames(prefix: string): Topics {
  return {
    events: `${prefix}${TOPIC_BASES.events}`,
    deadLetter: `${prefix}${TOPIC_BASES.deadLetter}`,
    problems: `${prefix}${TOPIC_BASES.problems}`,
  };
}
