export {
  eventSchemaV1,
  severityRank,
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
export { encodeEnvelope, decodeEnvelope, type EventEnvelope, type DecodeResult } from './envelope.ts';
export { NOTIFICATIONS_QUEUE, ACTIONS_QUEUE, SCHEDULER_QUEUE } from './queues.ts';
