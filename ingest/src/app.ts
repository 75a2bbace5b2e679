// The ingest HTTP surface as a fastify plugin: POST /api/v1/events and POST /api/v1/events/batch.
// Hot path: key check (cached), JSON parse, compiled schema v1, micro-batched claim + Kafka send.
// It never touches ClickHouse, and Postgres only through the cached key check.
import { bearerToken, errorBody, errorBodySchema, type ErrorBody } from '@watchpost/runtime';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyReply,
  type FastifyRequest,
  type HookHandlerDoneFunction,
} from 'fastify';
import type { Kafka } from 'kafkajs';
import type { Redis } from 'ioredis';
import type { Pool } from 'pg';
import { validateEvent, type EventV1, type ValidationError } from '@watchpost/schemas';
import { counter, eventLineWriter, type Config, type Logger } from '@watchpost/runtime';
import { ApiKeyVerifier } from '@watchpost/core/agent-keys';
import { AgentRateLimiter, InFlightLimiter } from './admission.ts';
import { ClaimStore } from './claims.ts';
import { KafkaEventSink, type EventSink } from './kafka-sink.ts';
import { splitNdjson, type BatchLine } from './ndjson.ts';
import { IngestPipeline, type Outcome } from './pipeline.ts';
import { resendKeyOf } from './resend.ts';
import { agentPollRoutes } from './agent-poll.ts';

export const EVENTS_PATH = '/api/v1/events';
export const BATCH_PATH = '/api/v1/events/batch';
/** Seconds an agent is asked to wait after a 503. */
export const RETRY_AFTER_SECONDS = 5;

export const INGEST_OUTCOMES = [
  'created',
  'duplicate',
  'rejected',
  'unavailable',
  'unauthorized',
  'too_large',
  'rate_limited',
] as const;
export type IngestOutcome = (typeof INGEST_OUTCOMES)[number];
const eventsTotal = counter('ingest_events_total', 'Ingest outcomes (one per event; batch lines count one each)', ['outcome']);

export interface KeyVerifier {
  /** The key's id, null for an unknown or revoked key; throws (rejects) when it cannot tell (then 503). */
  verify(key: string): number | null | Promise<number | null>;
}

export interface IngestDeps {
  config: Config;
  log: Logger;
  pipeline: IngestPipeline;
  keys: KeyVerifier;
  rate: AgentRateLimiter;
  inFlight: InFlightLimiter;
  /** Postgres for the agent poll (agent-poll.ts); without it the poll routes are not mounted. */
  pg?: Pool;
}

/** What a request holds of the in-flight caps (released when its response is done or the client left). */
interface Admitted {
  keyId: number;
  events: number;
  bytes: number;
}

/** The key from `X-API-Key` or `Authorization: Bearer <key>`. */
export function agentKey(headers: FastifyRequest['headers']): string | undefined {
  const x = headers['x-api-key'];
  if (typeof x === 'string' && x) return x.trim();
  return bearerToken(headers.authorization);
}

type LineResult =
  | { status: 201; event_id: string; received_at: string }
  | { status: 409 | 429 | 503; event_id: string; error: ErrorBody['error'] }
  | { status: 413 | 422; event_id?: string; error: ErrorBody['error'] };

/**
 * The 409 of a duplicate: the event_id was stored, or (details.resent_of) the same event was stored
 * under another id and this is the agent's re-send of it (resend.ts). The Windows agent takes 409 as
 * delivered (Sac-Client.ps1 Test-SacIngestAcceptedStatus) and drops it from its spool.
 */
export function duplicateError(eventId: string, o: { resentOf?: string }): ErrorBody {
  if (!o.resentOf) return errorBody('DUPLICATE_EVENT', 'event_id already stored', { event_id: eventId });
  return errorBody(
    'DUPLICATE_EVENT',
    `the same event (host, type, time on the host and content) is already stored as ${o.resentOf}; this re-send under a new event_id is not stored again`,
    { event_id: eventId, resent_of: o.resentOf },
  );
}

/** Best-effort identifiers of a rejected body for the log line (bounded in size). */
function identify(x: unknown): { event_id?: string; hostname?: string } {
  if (typeof x !== 'object' || x === null) return {};
  const o = x as { event_id?: unknown; host?: { hostname?: unknown } };
  const out: { event_id?: string; hostname?: string } = {};
  if (typeof o.event_id === 'string') out.event_id = o.event_id.slice(0, 64);
  if (typeof o.host === 'object' && o.host !== null && typeof o.host.hostname === 'string')
    out.hostname = o.host.hostname.slice(0, 256);
  return out;
}

type Checked =
  { ok: true; event: EventV1 } | { ok: false; errors: ValidationError[]; id: { event_id?: string; hostname?: string } };

function parseAndValidate(text: string | undefined): Checked {
  if (text === undefined || text.trim() === '')
    return { ok: false, errors: [{ pointer: '', message: 'body is empty; expected one event as JSON' }], id: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { ok: false, errors: [{ pointer: '', message: `malformed JSON: ${(err as Error).message}` }], id: {} };
  }
  const v = validateEvent(parsed);
  return v.ok ? v : { ok: false, errors: v.errors, id: identify(parsed) };
}

/**
 * The Kafka value (schemas/src/envelope.ts): {"received_at":..., "event":...}. The event goes in as the text
 * the agent sent (it parsed and validated, so consumers' JSON.parse yields the validated event):
 * re-serialising every event cost a noticeable share of the batch path.
 */
export function envelopeValue(receivedAt: string, eventJson: string): string {
  return `{"received_at":"${receivedAt}","event":${eventJson}}`;
}

/** envelopeValue around the bytes the agent sent (whitespace around the event is valid JSON inside). */
export function envelopeBytes(receivedAt: string, event: Buffer): Buffer {
  const head = `{"received_at":"${receivedAt}","event":`; // ASCII
  const out = Buffer.allocUnsafe(head.length + event.length + 1);
  out.write(head, 0, 'latin1');
  event.copy(out, head.length);
  out[out.length - 1] = 0x7d; // }
  return out;
}

type OutcomeFields = { event_id?: string; hostname?: string; reason?: string };

/**
 * What the ingest routes share, made once per plugin: who holds what of the in-flight caps, the
 * outcome counters and log line, and the hand-over of one valid event to the pipeline.
 */
interface IngestRouteKit {
  config: Config;
  log: Logger;
  keys: KeyVerifier;
  rate: AgentRateLimiter;
  inFlight: InFlightLimiter;
  admitted: WeakMap<FastifyRequest, Admitted>;
  record: (outcome: IngestOutcome, fields: OutcomeFields) => void;
  ingestOne: (event: EventV1, bytes: Buffer, receivedAt: string, keyId: number) => Promise<Outcome>;
}

function routeKit(deps: IngestDeps): IngestRouteKit {
  const { config, log, pipeline, keys, rate, inFlight } = deps;
  // The outcome line holds event_id, hostname, outcome and our own reason text, never a credential;
  // it is written without pino's redaction and serializers, which took most of this once-per-event line's cost.
  const outcomeLine = eventLineWriter(log, 'info', 'ingest');
  const counted = Object.fromEntries(INGEST_OUTCOMES.map((o) => [o, eventsTotal.labels({ outcome: o })])) as Record<
    IngestOutcome,
    { inc(): void }
  >;

  function record(outcome: IngestOutcome, fields: OutcomeFields): void {
    counted[outcome].inc();
    outcomeLine({ event_id: fields.event_id ?? null, hostname: fields.hostname ?? null, outcome, reason: fields.reason ?? null });
  }

  /**
   * Hands one valid event to the pipeline. What waits for Kafka's acknowledgement holds the envelope and
   * two strings, not the parsed event or the body: whatever a request holds across that wait outlives a
   * young-generation collection and is copied to the old one (batches of 1,000 promoted ~2 KB per event).
   */
  function ingestOne(event: EventV1, bytes: Buffer, receivedAt: string, keyId: number): Promise<Outcome> {
    const fields = { event_id: event.event_id, hostname: event.host.hostname };
    const submitted = pipeline.submit({
      eventId: event.event_id,
      key: event.host.hostname,
      value: envelopeBytes(receivedAt, bytes),
      receivedAt,
      keyId,
      resendKey: resendKeyOf(event),
    });
    return submitted.then((outcome) => {
      if (outcome.status === 'created') record('created', fields);
      else record(outcome.status, { ...fields, reason: outcome.reason });
      return outcome;
    });
  }

  return { config, log, keys, rate, inFlight, admitted: new WeakMap(), record, ingestOne };
}

function toLine(event_id: string, o: Outcome): LineResult {
  if (o.status === 'created') return { status: 201, event_id, received_at: o.receivedAt };
  if (o.status === 'duplicate') return { status: 409, event_id, error: duplicateError(event_id, o).error };
  return { status: 503, event_id, error: { code: 'UNAVAILABLE', message: 'event store temporarily unavailable; retry later' } };
}

function unavailable(reply: FastifyReply, message: string) {
  return reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS)).send(errorBody('UNAVAILABLE', message));
}

/** The host's bucket under its key, for a valid event (hostname and agent instance). */
function hostOf(keyId: number, event: EventV1): string {
  return AgentRateLimiter.hostId(keyId, event.host.hostname, event.source.agent_instance_id);
}

const hostRateMessage = (wait: number, what = 'events') => `too many ${what} from this host; retry after ${wait} s`;

/** 429 with Retry-After; `what` is charged (the agent poll's requests pay into the events' buckets too). */
function rateLimited(reply: FastifyReply, waitSeconds: number, scope: 'key' | 'host' = 'key', what = 'events') {
  const message =
    scope === 'key'
      ? `too many ${what} for this agent key (all its hosts together); retry after ${waitSeconds} s`
      : hostRateMessage(waitSeconds, what);
  return reply.code(429).header('retry-after', String(waitSeconds)).send(errorBody('RATE_LIMITED', message));
}

/**
 * The onRequest hook, before the body is read: key check, the key's rate ceiling (the host is not
 * known yet), and the process's in-flight caps. Callback style: a key in the cache is checked within
 * the request's own turn, without the promise and microtask of an async hook on every request.
 */
function admitRequest(kit: IngestRouteKit) {
  const { keys, record } = kit;
  const keyUnavailable = (reply: FastifyReply) => {
    record('unavailable', { reason: 'agent key check unavailable' });
    unavailable(reply, 'agent key check temporarily unavailable; retry later');
  };
  return (req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const key = agentKey(req.headers);
    let id: ReturnType<KeyVerifier['verify']>;
    try {
      id = key ? keys.verify(key) : null;
    } catch {
      return keyUnavailable(reply);
    }
    if (typeof id === 'number' || id === null) {
      if (admitKey(kit, req, reply, key, id)) done();
      return;
    }
    id.then(
      (v) => {
        if (admitKey(kit, req, reply, key, v)) done();
      },
      () => keyUnavailable(reply),
    ).catch((err: Error) => done(err));
  };
}

/** The rest of admitRequest once the key's id is known (null: unknown or revoked); true: go on. */
function admitKey(kit: IngestRouteKit, req: FastifyRequest, reply: FastifyReply, key: string | undefined, id: number | null) {
  const { config, rate, inFlight, admitted, record } = kit;
  if (id === null) {
    record('unauthorized', { reason: key ? 'unknown or revoked API key' : 'missing API key' });
    reply
      .code(401)
      .header('www-authenticate', 'Bearer')
      .send(errorBody('UNAUTHORIZED', 'a valid agent API key is required in X-API-Key or Authorization: Bearer'));
    return false;
  }
  const isBatch = req.routeOptions.url === BATCH_PATH;
  // Refused here only when the key's ceiling is empty; events pay per host once they are read.
  const wait = rate.checkKey(id);
  if (wait > 0) {
    record('rate_limited', { reason: `agent key ${id} over its ceiling of ${rate.limits.keyRate} events/s` });
    rateLimited(reply, wait);
    return false;
  }
  // The declared length (or the route's limit when none is declared) is held until the answer.
  const limit = isBatch ? config.ingest.batchMaxBytes : config.ingest.maxBodyBytes;
  const declared = Number(req.headers['content-length']);
  const bytes = Number.isFinite(declared) && declared >= 0 ? Math.min(declared, limit) : limit;
  const events = isBatch ? 0 : 1;
  if (!inFlight.tryAcquire(events, bytes)) {
    record('unavailable', { reason: 'ingest at capacity (events or bytes in flight)' });
    unavailable(reply, 'ingest is at capacity; retry later');
    return false;
  }
  const held: Admitted = { keyId: id, events, bytes };
  admitted.set(req, held);
  reply.raw.once('close', () => inFlight.release(held.events, held.bytes));
  return true;
}

/**
 * Agents get our error shape, and 422 rather than fastify's 400 for a body it could not read; each
 * counts as an outcome.
 */
function ingestErrorHandler(kit: IngestRouteKit) {
  const { log, record } = kit;
  return (err: Error & { statusCode?: number; code?: string }, _req: FastifyRequest, reply: FastifyReply) => {
    if (err.statusCode === 413) {
      record('too_large', { reason: err.message });
      return reply.code(413).send(errorBody('PAYLOAD_TOO_LARGE', err.message));
    }
    if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
      record('rejected', { reason: err.message });
      return reply.code(422).send(errorBody('INVALID_EVENT', err.message, { errors: [{ pointer: '', message: err.message }] }));
    }
    log.error({ err }, 'ingest request failed');
    return reply.code(500).send(errorBody('INTERNAL', 'internal error'));
  };
}

const commonResponses = {
  401: { $ref: 'ingestError#' },
  413: { $ref: 'ingestError#' },
  422: { $ref: 'ingestError#' },
  503: { $ref: 'ingestError#' },
};

function singleEventRoute(kit: IngestRouteKit): FastifyPluginAsync {
  // The single-event route reads its body as bytes, in its own context (the agent poll keeps text).
  return async (singleApp) => {
    singleApp.removeAllContentTypeParsers();
    const asBytes = (_req: FastifyRequest, body: Buffer, done: (err: null, body: Buffer) => void) => done(null, body);
    // The agents' own type by name as well: fastify caches the parser it found for a content type, but not
    // the catch-all's, which it looks up again, parsing the header, on every request (1.4 µs per event).
    singleApp.addContentTypeParser('application/json', { parseAs: 'buffer' }, asBytes);
    singleApp.addContentTypeParser('*', { parseAs: 'buffer' }, asBytes);
    singleApp.post(
      EVENTS_PATH,
      {
        bodyLimit: kit.config.ingest.maxBodyBytes,
        config: { access: 'agent' },
        schema: {
          tags: ['ingest'],
          summary: 'Ingest one event (schema v1)',
          response: {
            201: {
              type: 'object',
              required: ['event_id', 'received_at'],
              properties: { event_id: { type: 'string' }, received_at: { type: 'string' } },
            },
            409: { $ref: 'ingestError#' },
            ...commonResponses,
          },
        },
      },
      (req, reply) => ingestSingle(kit, req, reply),
    );
  };
}

async function ingestSingle(kit: IngestRouteKit, req: FastifyRequest, reply: FastifyReply) {
  const submitted = submitSingle(kit, req, reply);
  if (!('outcome' in submitted)) return submitted;
  // Only the event_id waits with the request (see ingestOne).
  const { eventId } = submitted;
  const o = await submitted.outcome;
  if (o.status === 'created') return reply.code(201).send({ event_id: eventId, received_at: o.receivedAt });
  if (o.status === 'duplicate') return reply.code(409).send(duplicateError(eventId, o));
  return reply
    .code(503)
    .header('retry-after', String(RETRY_AFTER_SECONDS))
    .send(errorBody('UNAVAILABLE', 'event store temporarily unavailable; retry later'));
}

/** Parses, validates and admits the body, then hands the event on; the answer sent when it goes no further. */
function submitSingle(
  kit: IngestRouteKit,
  req: FastifyRequest,
  reply: FastifyReply,
): FastifyReply | { eventId: string; outcome: Promise<Outcome> } {
  const { rate, admitted, record } = kit;
  const receivedAt = new Date().toISOString();
  // Parsed and validated from one decoding of the body; Kafka gets the bytes as received.
  const body = req.body as Buffer | undefined;
  const checked = parseAndValidate(body?.toString('utf8'));
  const { keyId } = admitted.get(req)!;
  if (!checked.ok) {
    // Names no host it could be charged to: only the key's ceiling pays.
    rate.chargeKey(keyId, 1);
    record('rejected', {
      ...checked.id,
      reason: checked.errors.map((e) => `${e.pointer || '/'} ${e.message}`).join('; '),
    });
    return reply
      .code(422)
      .send(errorBody('INVALID_EVENT', 'the body is not one valid event (schema v1)', { errors: checked.errors }));
  }
  const refused = rate.take(keyId, hostOf(keyId, checked.event), 1);
  if (refused) {
    record('rate_limited', {
      event_id: checked.event.event_id,
      hostname: checked.event.host.hostname,
      reason:
        refused.scope === 'key'
          ? `agent key ${keyId} over its ceiling of ${rate.limits.keyRate} events/s`
          : `host over ${rate.limits.hostRate} events/s on agent key ${keyId}`,
    });
    return rateLimited(reply, refused.wait, refused.scope);
  }
  const outcome = kit.ingestOne(checked.event, body!, receivedAt, keyId);
  // The request holds its body until it is answered; the envelope holds a copy now.
  req.body = undefined;
  return { eventId: checked.event.event_id, outcome };
}

function batchRoute(kit: IngestRouteKit): FastifyPluginAsync {
  const { config } = kit;
  // The batch route parses its body as a stream of lines (ndjson.ts), in its own context so that
  // the single-event route keeps the plain text parser.
  return async (batchApp) => {
    batchApp.removeAllContentTypeParsers();
    batchApp.addContentTypeParser('*', async (req: FastifyRequest, payload: AsyncIterable<Buffer>) => {
      const declared = Number(req.headers['content-length']);
      if (Number.isFinite(declared) && declared > config.ingest.batchMaxBytes) {
        throw Object.assign(new Error(`a batch may take at most ${config.ingest.batchMaxBytes} bytes`), { statusCode: 413 });
      }
      return splitNdjson(payload, {
        maxBytes: config.ingest.batchMaxBytes,
        maxLineBytes: config.ingest.maxBodyBytes,
        maxEvents: config.ingest.batchMaxEvents,
      });
    });
    batchApp.post(
      BATCH_PATH,
      {
        config: { access: 'agent' },
        schema: {
          tags: ['ingest'],
          summary: `Ingest up to ${config.ingest.batchMaxEvents} events as NDJSON (one event per line)`,
        },
      },
      (req, reply) => ingestBatch(kit, req, reply),
    );
  };
}

/** A batch line after parsing: `checked` undefined for a line over the per-event limit. */
interface CheckedLine {
  line: number;
  bytes: Buffer | undefined;
  checked: Checked | undefined;
}

async function ingestBatch(kit: IngestRouteKit, req: FastifyRequest, reply: FastifyReply) {
  const { config, record } = kit;
  const receivedAt = new Date().toISOString();
  const { lines, count } = (req.body as Awaited<ReturnType<typeof splitNdjson>> | undefined) ?? { lines: [], count: 0 };
  if (count > config.ingest.batchMaxEvents) {
    record('too_large', { reason: `batch of ${count} events` });
    return reply.code(413).send(
      errorBody('BATCH_TOO_LARGE', `at most ${config.ingest.batchMaxEvents} events per batch, got ${count}`, {
        max_events: config.ingest.batchMaxEvents,
      }),
    );
  }
  if (count === 0) {
    record('rejected', { reason: 'empty batch' });
    return reply.code(422).send(errorBody('INVALID_BATCH', 'the body holds no events; expected NDJSON, one event per line'));
  }
  const submitted = submitBatch(kit, req, reply, lines, count, receivedAt);
  if ('refusal' in submitted) return submitted.refusal;
  const { pending, hostWait } = submitted;
  const results = await Promise.all(pending);
  const summary = summarize(results);
  // Any line the event log could not take (503) or its host's bucket refused (429) makes the
  // whole answer that status (with every line's result): retrying the whole batch is safe,
  // stored lines then answer 409.
  if (summary.unavailable > 0) reply.code(503).header('retry-after', String(Math.max(RETRY_AFTER_SECONDS, hostWait)));
  else if (summary.rate_limited > 0) reply.code(429).header('retry-after', String(hostWait));
  else reply.code(200);
  return reply.send({ ...summary, results });
}

/**
 * Parses, admits and hands on a batch's lines: the refusal sent when the whole batch is refused, else each
 * line's pending answer and the longest host wait. The request keeps its body until it is answered, so the
 * lines are taken out of it: the text, bytes and parsed events need not outlive the hand-over.
 */
function submitBatch(
  kit: IngestRouteKit,
  req: FastifyRequest,
  reply: FastifyReply,
  lines: BatchLine[],
  count: number,
  receivedAt: string,
): { refusal: FastifyReply } | { pending: Promise<LineResult & { line: number }>[]; hostWait: number } {
  const checked: CheckedLine[] = lines.map(({ line, text, bytes }) => ({
    line,
    bytes,
    checked: text === undefined ? undefined : parseAndValidate(text),
  }));
  lines.length = 0;
  const held = kit.admitted.get(req)!;
  const admission = admitBatch(kit, reply, held, checked, count);
  if ('refusal' in admission) return admission;
  const { refused, hostOfLine, hostWait } = admission;
  const pending = checked.map((c, i) => lineResult(kit, c, refused.get(hostOfLine[i]!), held.keyId, receivedAt));
  return { pending, hostWait };
}

/**
 * Charges a batch's lines to the rate buckets and its valid events to the in-flight cap: the refusal
 * sent when the whole batch is refused, else the hosts refused (host id -> seconds to wait), each
 * line's host id (undefined for a line that is not a valid event) and the longest host wait.
 */
function admitBatch(
  kit: IngestRouteKit,
  reply: FastifyReply,
  held: Admitted,
  checked: CheckedLine[],
  count: number,
): { refusal: FastifyReply } | { refused: Map<string, number>; hostOfLine: (string | undefined)[]; hostWait: number } {
  const { rate, inFlight, record } = kit;
  // Each valid line pays to its host's bucket; the others name no host and pay the ceiling only.
  const perHost = new Map<string, number>();
  const hostOfLine: (string | undefined)[] = checked.map((c) => {
    if (!c.checked?.ok) return undefined;
    const h = hostOf(held.keyId, c.checked.event);
    perHost.set(h, (perHost.get(h) ?? 0) + 1);
    return h;
  });
  const valid = hostOfLine.reduce((n, h) => (h === undefined ? n : n + 1), 0);
  // The in-flight cap and the key's ceiling decide for the whole batch before any line is
  // appended: refused, nothing of it is stored.
  if (!inFlight.tryAcquire(valid, 0)) {
    record('unavailable', { reason: 'ingest at capacity (events in flight)' });
    return { refusal: unavailable(reply, 'ingest is at capacity; retry later') };
  }
  held.events += valid;
  const { keyWait, refused } = rate.admit(held.keyId, perHost, count - valid);
  if (keyWait > 0) {
    record('rate_limited', {
      reason: `agent key ${held.keyId} over its ceiling of ${rate.limits.keyRate} events/s (batch of ${count})`,
    });
    return { refusal: rateLimited(reply, keyWait) };
  }
  // A host over its own bucket: its lines answer 429 each, the other hosts' lines go on.
  let hostWait = 0;
  if (refused.size > 0) {
    let n = 0;
    for (const [h, events] of perHost) {
      const w = refused.get(h);
      if (w === undefined) continue;
      n += events;
      hostWait = Math.max(hostWait, w);
    }
    inFlight.release(n, 0);
    held.events -= n;
  }
  return { refused, hostOfLine, hostWait };
}

/** One line's answer; `hostWait` is set when its host's bucket refused it. Valid lines go to the pipeline. */
function lineResult(
  kit: IngestRouteKit,
  { line, bytes, checked: c }: CheckedLine,
  hostWait: number | undefined,
  keyId: number,
  receivedAt: string,
): Promise<LineResult & { line: number }> {
  const { config, rate, record } = kit;
  if (c === undefined) {
    record('too_large', { reason: `line ${line} over ${config.ingest.maxBodyBytes} bytes` });
    return Promise.resolve({
      line,
      status: 413,
      error: { code: 'PAYLOAD_TOO_LARGE', message: `an event may take at most ${config.ingest.maxBodyBytes} bytes` },
    });
  }
  if (!c.ok) {
    record('rejected', {
      ...c.id,
      reason: `line ${line}: ${c.errors.map((e) => `${e.pointer || '/'} ${e.message}`).join('; ')}`,
    });
    return Promise.resolve({
      line,
      status: 422,
      ...(c.id.event_id ? { event_id: c.id.event_id } : {}),
      error: { code: 'INVALID_EVENT', message: 'not one valid event (schema v1)', details: { errors: c.errors } },
    });
  }
  const ev = c.event;
  if (hostWait !== undefined) {
    record('rate_limited', {
      event_id: ev.event_id,
      hostname: ev.host.hostname,
      reason: `line ${line}: host over ${rate.limits.hostRate} events/s on agent key ${keyId}`,
    });
    return Promise.resolve({
      line,
      status: 429,
      event_id: ev.event_id,
      error: { code: 'RATE_LIMITED', message: hostRateMessage(hostWait) },
    });
  }
  const id = ev.event_id;
  return kit.ingestOne(ev, bytes!, receivedAt, keyId).then((o) => ({ line, ...toLine(id, o) }));
}

function summarize(results: LineResult[]) {
  const summary = { created: 0, duplicate: 0, rejected: 0, unavailable: 0, rate_limited: 0 };
  for (const r of results) {
    if (r.status === 201) summary.created++;
    else if (r.status === 409) summary.duplicate++;
    else if (r.status === 503) summary.unavailable++;
    else if (r.status === 429) summary.rate_limited++;
    else summary.rejected++;
  }
  return summary;
}

export function ingestRoutes(deps: IngestDeps): FastifyPluginAsync {
  const kit = routeKit(deps);
  return async (app: FastifyInstance) => {
    // No child logger per request (fastify binds the request id into one, redacting its bindings: ~5 µs
    // per event): these routes log through `log` and their outcome lines, never through `req.log`.
    app.setChildLoggerFactory((logger) => logger);
    // Bodies arrive as text whatever their content type: malformed JSON must be a 422 with our
    // error shape, not fastify's 400/415.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    app.addHook('onRequest', admitRequest(kit));
    app.setErrorHandler(ingestErrorHandler(kit));
    app.addSchema({ $id: 'ingestError', ...errorBodySchema });
    await app.register(singleEventRoute(kit));
    await app.register(batchRoute(kit));
    if (deps.pg)
      await app.register(
        agentPollRoutes({
          pg: deps.pg,
          config: kit.config,
          log: kit.log,
          keyIdOf: (req) => kit.admitted.get(req)?.keyId,
          rate: kit.rate,
          rateLimited,
        }),
      );
  };
}

export interface IngestService {
  routes: FastifyPluginAsync;
  pipeline: IngestPipeline;
  sink: EventSink;
  claims: ClaimStore;
  /** Events and bytes this process holds now (tests, diagnostics). */
  inFlight: InFlightLimiter;
  /** The agent key check and the per-key/per-host rate limits (the SMTP intake uses them too). */
  keys: KeyVerifier;
  rate: AgentRateLimiter;
  /** Drains queued and in-flight events, then disconnects the producer. */
  close(): Promise<void>;
}

/** Wires claim store, Kafka sink, micro-batcher and key verifier from clients the caller owns. */
export function createIngest(opts: {
  config: Config;
  log: Logger;
  redis: Redis;
  pg: Pool;
  kafka: Kafka;
  sink?: EventSink;
}): IngestService {
  const { config, log } = opts;
  const ic = config.ingest;
  const claims = new ClaimStore(opts.redis, {
    prefix: config.claimKeyPrefix,
    provisionalMs: ic.claimProvisionalMs,
    committedMs: ic.claimTtlDays * 86_400_000,
    resendMs: ic.resendWindowHours * 3_600_000,
  });
  const sink = opts.sink ?? new KafkaEventSink(opts.kafka, config.topics.events, ic.produceTimeoutMs, config.kafkaCompression);
  const pipeline = new IngestPipeline({
    claims,
    sink,
    log,
    lingerMs: ic.lingerMs,
    maxBatch: ic.microBatchMaxEvents,
    timeoutMs: ic.produceTimeoutMs,
    // Wait for another request's provisional claim about as long as its produce may take.
    pendingWaitMs: ic.produceTimeoutMs + 1000,
  });
  const keys = new ApiKeyVerifier(opts.pg, {
    ttlMs: ic.keyCacheSeconds * 1000,
    staleMs: ic.keyStaleSeconds * 1000,
    lookupTimeoutMs: ic.produceTimeoutMs,
    log,
  });
  const rate = new AgentRateLimiter({
    keyRate: ic.ratePerKey,
    keyBurst: ic.rateBurst,
    hostRate: ic.ratePerHost,
    hostBurst: ic.rateHostBurst,
  });
  const inFlight = new InFlightLimiter(ic.maxInFlightEvents, ic.maxInFlightBytes);
  return {
    routes: ingestRoutes({ config, log, pipeline, keys, rate, inFlight, pg: opts.pg }),
    inFlight,
    keys,
    rate,
    pipeline,
    sink,
    claims,
    async close() {
      await pipeline.close();
      await sink.close();
    },
  };
}

/** A standalone fastify app with the ingest routes (tests, benchmarks). The caller owns the clients. */
export async function buildIngestApp(opts: {
  config: Config;
  log: Logger;
  redis: Redis;
  pg: Pool;
  kafka: Kafka;
  sink?: EventSink;
}): Promise<{ app: FastifyInstance; ingest: IngestService }> {
  const ingest = createIngest(opts);
  const app = Fastify({
    loggerInstance: opts.log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: opts.config.ingest.maxBodyBytes,
  });
  await app.register(ingest.routes);
  app.addHook('onClose', () => ingest.close());
  await app.ready();
  return { app, ingest };
}
