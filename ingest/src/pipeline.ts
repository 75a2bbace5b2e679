// The ingest micro-batcher: requests that arrive within `lingerMs` (or until `maxBatch`) share one
// claim script call, one Kafka send and one commit script call. kafkajs sends each send() as its own
// request, so grouping here is what lets ingest go beyond a few thousand events per second.
import { randomBytes } from 'node:crypto';
import { histogram } from '@watchpost/runtime';
import type { Logger } from '@watchpost/runtime';
import { AGENT_KEY_HEADER } from '@watchpost/schemas';
import type { ClaimStore } from './claims.ts';
import { withTimeout, type EventSink } from './kafka-sink.ts';

export type Outcome =
  { status: 'created'; receivedAt: string } | { status: 'duplicate'; reason: string } | { status: 'unavailable'; reason: string };

export interface PipelineItem {
  eventId: string;
  /** Kafka key: the hostname. */
  key: string;
  /** Kafka value: the encoded envelope. */
  value: string;
  receivedAt: string;
  /** The verified agent key's id: the AGENT_KEY_HEADER of the message (correlate binds hosts to it). */
  keyId: number;
}

interface Pending extends PipelineItem {
  resolve(o: Outcome): void;
  /** Until when a request that meets another process's provisional claim keeps waiting. */
  waitUntil: number;
}

export interface PipelineOptions {
  claims: ClaimStore;
  sink: EventSink;
  log: Logger;
  lingerMs: number;
  maxBatch: number;
  /** Bound on the claim/commit calls to Redis. */
  timeoutMs: number;
  /** How long a request waits for another process's provisional claim to resolve before 503. */
  pendingWaitMs: number;
  /** Micro-batches in flight at once; beyond that, requests queue and the next batch grows. */
  maxInFlight?: number;
}

const batchSize = histogram(
  'ingest_microbatch_events',
  'Events per ingest micro-batch (one claim call, one Kafka send)',
  [],
  [1, 5, 20, 50, 100, 250, 500, 1000, 2500, 5000],
);
const produceSeconds = histogram(
  'ingest_produce_seconds',
  'Kafka send latency per micro-batch (acks=all)',
  [],
  [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
);

const PENDING_POLL_MS = 20;
/** Safety margin below the provisional claim TTL for answering before the commit. */
const COMMIT_MARGIN_MS = 1000;

export class IngestPipeline {
  private readonly o: Required<PipelineOptions>;
  private queue: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private inFlight = 0;
  private readonly running = new Set<Promise<void>>();
  /** Kafka key (hostname) -> batches in flight carrying it. */
  private readonly keysInFlight = new Map<string, number>();
  /** event_id (lower case) -> outcome of the request that carries it in this process right now. */
  private readonly local = new Map<string, Promise<Outcome>>();
  private readonly instance = randomBytes(6).toString('base64url');
  private seq = 0;
  private closed = false;

  constructor(opts: PipelineOptions) {
    this.o = { maxInFlight: 8, ...opts };
  }

  /** Claims, produces and commits one event; resolves with what the agent should hear. */
  submit(item: PipelineItem): Promise<Outcome> {
    if (this.closed) return Promise.resolve({ status: 'unavailable', reason: 'shutting down' });
    const id = item.eventId.toLowerCase();
    const same = this.local.get(id);
    // The same event_id already in flight here: its outcome decides (created there = duplicate here).
    if (same)
      return same.then((o) => (o.status === 'unavailable' ? o : { status: 'duplicate', reason: 'event_id already stored' }));
    const p = new Promise<Outcome>((resolve) => {
      this.enqueue({ ...item, eventId: id, resolve, waitUntil: Date.now() + this.o.pendingWaitMs });
    });
    this.local.set(id, p);
    void p.then(() => this.local.delete(id));
    return p;
  }

  private enqueue(p: Pending): void {
    this.queue.push(p);
    // At each multiple only: events held back behind their host's batch in flight stay queued, and a
    // flush per enqueue would rescan them every time.
    if (this.queue.length % this.o.maxBatch === 0) this.flush();
    else if (this.inFlight === 0) {
      // Idle: go as soon as this turn of the event loop has read what arrived with it.
      this.immediate ??= setImmediate(() => this.flush());
    } else if (!this.timer) this.timer = setTimeout(() => this.flush(), this.o.lingerMs);
  }

  private flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.immediate) {
      clearImmediate(this.immediate);
      this.immediate = undefined;
    }
    while (this.queue.length > 0 && this.inFlight < this.o.maxInFlight) {
      const batch = this.take();
      if (batch.length === 0) break; // every queued event waits for a batch of its host in flight
      const keys = batch.map((b) => b.key);
      for (const k of keys) this.keysInFlight.set(k, (this.keysInFlight.get(k) ?? 0) + 1);
      let released = false;
      const releaseKeys = (): void => {
        if (released) return;
        released = true;
        for (const k of keys) {
          const n = this.keysInFlight.get(k)! - 1;
          if (n === 0) this.keysInFlight.delete(k);
          else this.keysInFlight.set(k, n);
        }
        // Events held back behind this send may go now, without waiting for this batch's commit.
        if (this.queue.length > 0) this.immediate ??= setImmediate(() => this.flush());
      };
      this.inFlight++;
      const run = this.process(batch, releaseKeys).finally(() => {
        releaseKeys();
        this.inFlight--;
        this.running.delete(run);
        if (this.queue.length > 0 && !this.timer) this.flush();
      });
      this.running.add(run);
    }
  }

  /**
   * The next batch, in queue order, without any host (Kafka key) that a batch in flight still carries:
   * a host's later events wait until its earlier ones are acknowledged or failed, so they reach Kafka
   * in the order ingest accepted them even when a send is retried (kafkajs retries a failed send as a
   * whole while later sends may already have landed). Once a host is held back, all its later events are too.
   */
  private take(): Pending[] {
    if (this.keysInFlight.size === 0) return this.queue.splice(0, this.o.maxBatch);
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    const held = new Set<string>();
    for (const p of this.queue) {
      if (batch.length < this.o.maxBatch && !this.keysInFlight.has(p.key) && !held.has(p.key)) batch.push(p);
      else {
        held.add(p.key);
        rest.push(p);
      }
    }
    this.queue = rest;
    return batch;
  }

  /** releaseKeys: called once the Kafka send settled (later events of these hosts may go then). */
  private async process(batch: Pending[], releaseKeys: () => void): Promise<void> {
    batchSize.observe(batch.length);
    const token = `p${this.instance}:${this.seq++}`;
    const { claims, sink, log, timeoutMs } = this.o;
    // The claims are set after this instant, so they are younger than `Date.now() - claimedBy`.
    const claimedBy = Date.now();
    let states;
    try {
      states = await withTimeout(
        claims.claim(
          batch.map((b) => b.eventId),
          token,
        ),
        timeoutMs,
        'claim',
      );
    } catch (err) {
      log.warn({ err }, 'claim store unavailable');
      for (const b of batch) b.resolve({ status: 'unavailable', reason: 'claim store unavailable' });
      return;
    }
    const mine: Pending[] = [];
    const now = Date.now();
    states.forEach((s, i) => {
      const b = batch[i]!;
      if (s === 'claimed') mine.push(b);
      else if (s === 'stored') b.resolve({ status: 'duplicate', reason: 'event_id already stored' });
      else if (now < b.waitUntil) setTimeout(() => this.requeue(b), PENDING_POLL_MS);
      else b.resolve({ status: 'unavailable', reason: 'event_id is being stored by another request' });
    });
    if (mine.length === 0) return;

    const ids = mine.map((b) => b.eventId);
    const started = process.hrtime.bigint();
    try {
      await sink.send(mine.map((b) => ({ key: b.key, value: b.value, headers: { [AGENT_KEY_HEADER]: String(b.keyId) } })));
      releaseKeys();
      produceSeconds.observe(Number(process.hrtime.bigint() - started) / 1e9);
    } catch (err) {
      releaseKeys();
      log.warn({ err, events: mine.length }, 'kafka produce failed');
      // Release so the agent's retry is accepted at once (a claim left behind would expire anyway).
      await withTimeout(claims.release(ids, token), timeoutMs, 'release').catch((e: unknown) =>
        log.warn({ err: e }, 'claim release failed'),
      );
      for (const b of mine) b.resolve({ status: 'unavailable', reason: 'event log unavailable' });
      return;
    }
    // While the provisional claims cannot have expired, no other request can have claimed these ids:
    // the agents hear 201 now and the commit runs after (a duplicate meanwhile waits on the
    // provisional claim, then reads "stored"). Past that margin, the commit's answer decides.
    if (Date.now() - claimedBy < claims.opts.provisionalMs - COMMIT_MARGIN_MS) {
      for (const b of mine) b.resolve({ status: 'created', receivedAt: b.receivedAt });
      await this.commit(ids, token);
      return;
    }
    const committed = await this.commit(ids, token);
    committed.forEach((ok, i) => {
      const b = mine[i]!;
      b.resolve(
        ok
          ? { status: 'created', receivedAt: b.receivedAt }
          : { status: 'duplicate', reason: 'event_id claimed by another request meanwhile' },
      );
    });
  }

  /** Makes the claims permanent; after a failure reports them ours (they are in Kafka either way). */
  private async commit(ids: string[], token: string): Promise<boolean[]> {
    try {
      const ok = await withTimeout(this.o.claims.commit(ids, token), this.o.timeoutMs, 'commit');
      const lost = ok.filter((x) => !x).length;
      if (lost > 0) this.o.log.warn({ events: lost }, 'claims held by another request at commit');
      return ok;
    } catch (err) {
      // The events are in Kafka: they are stored. The provisional claims expire; a later retry of
      // these ids would be appended again and collapse downstream (sinks are idempotent by event_id).
      this.o.log.warn({ err, events: ids.length }, 'claim commit failed after Kafka ack');
      return ids.map(() => true);
    }
  }

  private requeue(b: Pending): void {
    if (this.closed) {
      b.resolve({ status: 'unavailable', reason: 'shutting down' });
      return;
    }
    this.enqueue(b);
  }

  /** Stops intake, flushes what is queued and waits for every batch in flight. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.queue.length > 0 || this.running.size > 0) {
      this.flush();
      await Promise.allSettled([...this.running]);
    }
  }
}
