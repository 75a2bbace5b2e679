// Every wire contract: event schema v1 and its validator, the Kafka envelope, topic and channel names,
// the problems.v1 message, the dead-letter record, the live.v1 messages, BullMQ queues and job payloads.
export {
  eventSchemaV1,
  severityRank,
  isSeverity,
  maxSeverity,
  SEVERITIES,
  CATEGORIES,
  PRODUCTS,
  OS_FAMILIES,
  RAW_FORMATS,
  RISK_LEVELS,
  type EventV1,
  type Severity,
} from './event-v1.ts';
export { validateEvent, MAX_REPORTED_ERRORS, type ValidationError, type ValidationResult } from './validate.ts';
export * from './envelope.ts';
export * from './topics.ts';
export * from './dead-letter.ts';
export * from './problems.ts';
export * from './live.ts';
export * from './queues.ts';
export * from './agent-poll.ts';
export * from './notifications.ts';
export * from './event-details.ts';
export * from './canonical-json.ts';
