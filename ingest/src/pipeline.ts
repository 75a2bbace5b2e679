// The ingest micro-batcher: requests that arrive within `lingerMs` (or until `maxBatch`) share one
// claim script call and one Kafka send; their commit rides along with a later claim call. kafkajs sends each send() as its own
// request, so grouping here is what lets ingest go beyond a few thousand events per second.
import { randomBytes } from 'node:crypto';
import { histogram } from '@watchpost/runtime';
import type { Logger } from '@watchpost/runtime';
import { AGENT_KEY_HEADER } from '@watchpost/schemas';
import type { ClaimStore, CommitGroup } from './claims.ts';
import { CountByKey, RecentById } from './in-flight.ts';
import { withTimeout, type EventSink } from './kafka-sink.ts';

export type Outcome =
  | { status: 'created'; receivedAt: string }
  /** resentOf: the event_id stored for the same event when this one is its re-send under a new id. */
  | { status: 'duplicate'; reason: string; resentOf?: string }
  | { status: 'unavailable'; reason: string };

export interface PipelineItem {
  eventId: string;
  /** Kafka key: the hostname. */
  key: string;
  /** Kafka value: the encoded envelope (a Buffer is sent as it is). */
  value: string | Buffer;
  receivedAt: string;
  /** The verified agent key's id: the AGENT_KEY_HEADER of the message (correlate binds hosts to it). */
  keyId: number;
  /** Content identity for agents that re-send under new ids (resend.ts); claimed with the event_id. */
  resendKey?: string;
}

interface Pending extends PipelineItem {
  resolve(o: Outcome): void;
  /** performance.now() when it was queued (again, after waiting on another process's claim). */
  queuedAt: number;
  /** Until when a request that meets another process's provisional claim keeps waiting. */
  waitUntil: number;
  /** The claim's token and when it was made (set once claimed). */
  token?: string;
  claimedAt?: number;
}

/** A send carries events claimed in one or more claim calls: group their ids by claim token. */
function byToken(items: Pending[]): [CommitGroup & { resendKeys: (string | undefined)[] }, Pending[]][] {
  const m = new Map<string, [CommitGroup & { resendKeys: (string | undefined)[] }, Pending[]]>();
  for (const b of items) {
    let g = m.get(b.token!);
    if (!g) m.set(b.token!, (g = [{ token: b.token!, eventIds: [], resendKeys: [] }, []]));
    g[0].eventIds.push(b.eventId);
    g[0].resendKeys.push(b.resendKey);
    g[1].push(b);
  }
  return [...m.values()];
}

/** One headers object per agent key id, shared by its messages. */
const headerCache = new Map<number, Record<string, string>>();
function agentKeyHeaders(keyId: number): Record<string, string> {
  let h = headerCache.get(keyId);
  if (!h) {
    if (headerCache.size > 10_000) headerCache.clear();
    headerCache.set(keyId, (h = { [AGENT_KEY_HEADER]: String(keyId) }));
  }
  return h;
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
// Where an event's wait in the pipeline goes, per micro-batch: its queue (the linger, or every claim slot
// taken), its claim call to Redis, its send to Kafka. Fine buckets below 10 ms, where a request's answer
// should come (ingest/README.md, "Logs and metrics"); observed once per micro-batch, not per event.
const WAIT_BUCKETS = [0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.1, 0.25, 1, 5];
const queueSeconds = histogram(
  'ingest_queue_seconds',
  "How long a micro-batch's oldest event waited for its claim call to go (linger, or all claim calls in flight)",
  [],
  WAIT_BUCKETS,
);
const claimSeconds = histogram(
  'ingest_claim_seconds',
  'Redis claim call latency per micro-batch (the commits riding along included)',
  [],
  WAIT_BUCKETS,
);
const produceSeconds = histogram('ingest_produce_seconds', 'Kafka send latency per micro-batch (acks=all)', [], WAIT_BUCKETS);

const PENDING_POLL_MS = 20;
/** Longest wait of a commit for a claim call to ride along with (then it goes alone). */
const COMMIT_RIDE_MAX_MS = 50;
/** Safety margin below the provisional claim TTL for answering before the commit. */
const COMMIT_MARGIN_MS = 1000;

export class IngestPipeline {
  private readonly o: Required<PipelineOptions>;
  /** Accepted, not yet claimed (in order). */
  private queue: Pending[] = [];
  /** Claimed by this process, waiting for a Kafka send (in the order accepted). */
  private claimed: Pending[] = [];
  /** Claim calls in flight, oldest first: their results reach `claimed` in this order. */
  private readonly claiming: { done: boolean; mine: Pending[] }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private sending = 0;
  /** Claim calls, sends and commit calls in flight; close() waits until none is. */
  private active = 0;
  private whenIdle: (() => void)[] = [];
  /** Kafka key (hostname) -> sends in flight carrying it (in-flight.ts: no delete per send). */
  private readonly keysInFlight = new CountByKey();
  /**
   * event_id (lower case) -> outcome of the request that carries it in this process right now, for the
   * last one to two generations of ids (in-flight.ts); an older one in flight meets its claim in Redis.
   */
  private readonly local = new RecentById<Promise<Outcome>>();
  private readonly instance = randomBytes(6).toString('base64url');
  private seq = 0;
  private closed = false;
  /** Commits of acknowledged sends, waiting to ride along with the next claim call. */
  private commits: { group: CommitGroup; resolve(committed: boolean[]): void }[] = [];
  private commitTimer: NodeJS.Timeout | undefined;

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
      this.enqueue({ ...item, eventId: id, resolve, queuedAt: 0, waitUntil: Date.now() + this.o.pendingWaitMs });
    });
    this.local.set(id, p);
    void p.then(() => this.local.settle(id, p));
    return p;
  }

  private enqueue(p: Pending): void {
    p.queuedAt = performance.now();
    this.queue.push(p);
    if (this.queue.length >= this.o.maxBatch) this.flush();
    else if (this.claiming.length === 0) {
      // Idle: go as soon as this turn of the event loop has read what arrived with it.
      this.immediate ??= setImmediate(() => this.flush());
    } else this.timer ??= setTimeout(() => this.flush(), this.o.lingerMs);
  }

  /**
   * Two stages. Claims (one script call per micro-batch) need no order and run up to `maxInFlight` at
   * once; their results are handed on in the order the batches were formed. Sends keep each host's
   * order (see `takeSend`).
   */
  private flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.immediate) {
      clearImmediate(this.immediate);
      this.immediate = undefined;
    }
    while (this.queue.length > 0 && this.claiming.length < this.o.maxInFlight) {
      const batch = this.queue.length <= this.o.maxBatch ? this.queue : this.queue.slice(0, this.o.maxBatch);
      this.queue = batch === this.queue ? [] : this.queue.slice(this.o.maxBatch);
      const slot = { done: false, mine: [] as Pending[] };
      this.claiming.push(slot);
      const run = this.claim(batch, slot).finally(() => {
        slot.done = true;
        // Hand on every finished claim at the head, in order.
        while (this.claiming[0]?.done) {
          const head = this.claiming.shift()!;
          for (const b of head.mine) this.claimed.push(b);
        }
        this.flushSends();
        if (this.queue.length > 0 && !this.timer) this.flush();
      });
      this.track(run);
    }
  }

  private flushSends(): void {
    while (this.claimed.length > 0 && this.sending < this.o.maxInFlight) {
      const batch = this.takeSend();
      if (batch.length === 0) break; // every claimed event waits for a send of its host in flight
      const keys = batch.map((b) => b.key);
      for (const k of keys) this.keysInFlight.add(k);
      let released = false;
      // Once Kafka answered, the next send may go: the commit that follows does not hold the slot.
      const releaseKeys = (): void => {
        if (released) return;
        released = true;
        this.sending--;
        for (const k of keys) this.keysInFlight.remove(k);
        // Events held back behind this send may go now, without waiting for this batch's commit.
        if (this.claimed.length > 0) queueMicrotask(() => this.flushSends());
      };
      this.sending++;
      const run = this.send(batch, releaseKeys).finally(() => {
        releaseKeys();
        if (this.claimed.length > 0) this.flushSends();
      });
      this.track(run);
    }
  }

  /**
   * The next send, in the order accepted, without any host (Kafka key) that a send in flight still carries:
   * a host's later events wait until its earlier ones are acknowledged or failed, so they reach Kafka
   * in the order ingest accepted them even when a send is retried (kafkajs retries a failed send as a
   * whole while later sends may already have landed). Once a host is held back, all its later events are too.
   */
  private takeSend(): Pending[] {
    const max = this.o.maxBatch;
    if (this.keysInFlight.busy === 0 && this.claimed.length <= max) {
      const all = this.claimed;
      this.claimed = [];
      return all;
    }
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    const held = new Set<string>();
    for (const p of this.claimed) {
      if (batch.length < max && !this.keysInFlight.has(p.key) && !held.has(p.key)) batch.push(p);
      else {
        held.add(p.key);
        rest.push(p);
      }
    }
    this.claimed = rest;
    return batch;
  }

  /** One claim script call for the batch; what this process now holds goes to `slot.mine`. */
  private async claim(batch: Pending[], slot: { mine: Pending[] }): Promise<void> {
    batchSize.observe(batch.length);
    const started = performance.now();
    queueSeconds.observe((started - batch[0]!.queuedAt) / 1000);
    const token = `p${this.instance}:${this.seq++}`;
    const { claims, log, timeoutMs } = this.o;
    // The claims are set after this instant, so they are younger than `Date.now() - claimedAt`.
    const claimedAt = Date.now();
    const commits = this.takeCommits();
    let states;
    let resentOf: (string | null)[];
    try {
      const r = await withTimeout(
        claims.claimAndCommit(
          batch.map((b) => ({ eventId: b.eventId, resendKey: b.resendKey })),
          token,
          commits.map((c) => c.group),
        ),
        timeoutMs,
        'claim',
      );
      claimSeconds.observe((performance.now() - started) / 1000);
      states = r.states;
      resentOf = r.resentOf;
      commits.forEach((c, i) => c.resolve(this.committed(r.committed[i]!)));
    } catch (err) {
      log.warn({ err }, 'claim store unavailable');
      for (const c of commits) c.resolve(this.commitFailed(c.group, err));
      for (const b of batch) b.resolve({ status: 'unavailable', reason: 'claim store unavailable' });
      return;
    }
    const now = Date.now();
    states.forEach((s, i) => {
      const b = batch[i]!;
      if (s === 'claimed') {
        b.token = token;
        b.claimedAt = claimedAt;
        slot.mine.push(b);
      } else if (s === 'stored') b.resolve({ status: 'duplicate', reason: 'event_id already stored' });
      else if (s === 'resent') {
        const of = resentOf[i]!;
        b.resolve({ status: 'duplicate', reason: `same event already stored as ${of}`, resentOf: of });
      } else if (now < b.waitUntil) setTimeout(() => this.requeue(b), PENDING_POLL_MS);
      else b.resolve({ status: 'unavailable', reason: 'event_id is being stored by another request' });
    });
  }

  /** releaseKeys: called once the Kafka send settled (later events of these hosts may go then). */
  private async send(mine: Pending[], releaseKeys: () => void): Promise<void> {
    const { claims, sink, log, timeoutMs } = this.o;
    const started = performance.now();
    try {
      await sink.send(mine.map((b) => ({ key: b.key, value: b.value, headers: agentKeyHeaders(b.keyId) })));
      releaseKeys();
      produceSeconds.observe((performance.now() - started) / 1000);
    } catch (err) {
      releaseKeys();
      log.warn({ err, events: mine.length }, 'kafka produce failed');
      // Release so the agent's retry is accepted at once (a claim left behind would expire anyway).
      await Promise.all(
        byToken(mine).map(([g]) =>
          withTimeout(claims.release(g.eventIds, g.token, g.resendKeys), timeoutMs, 'release').catch((e: unknown) =>
            log.warn({ err: e }, 'claim release failed'),
          ),
        ),
      );
      for (const b of mine) b.resolve({ status: 'unavailable', reason: 'event log unavailable' });
      return;
    }
    // While the provisional claims cannot have expired, no other request can have claimed these ids:
    // the agents hear 201 now and the commit runs after (a duplicate meanwhile waits on the
    // provisional claim, then reads "stored"). Past that margin, the commit's answer decides.
    const safe = Date.now() - claims.opts.provisionalMs + COMMIT_MARGIN_MS;
    const late = new Set<Pending>();
    for (const b of mine) {
      if (b.claimedAt! > safe) b.resolve({ status: 'created', receivedAt: b.receivedAt });
      else late.add(b);
    }
    await Promise.all(
      byToken(mine).map(async ([group, items]) => {
        // One claim call's events share a claim time: all answered above, or all late. The ones answered
        // are committed as held (written without reading, claims.ts). Should that commit reach Redis after
        // the claims expired after all (a stalled process), the events are in Kafka, so "stored" is true
        // whoever claimed them since; that request's append is a duplicate the sinks absorb, as with any
        // expired claim.
        group.held = !late.has(items[0]!);
        const committed = await this.commitLater(group);
        if (late.size === 0) return;
        committed.forEach((ok, i) => {
          const b = items[i]!;
          if (!late.has(b)) return;
          b.resolve(
            ok
              ? { status: 'created', receivedAt: b.receivedAt }
              : { status: 'duplicate', reason: 'event_id claimed by another request meanwhile' },
          );
        });
      }),
    );
  }

  /**
   * Makes the claims permanent, with the next claim call (or alone after a few ms when none comes):
   * the agents have their answers already, and a Redis call costs more than the keys in it.
   */
  private commitLater(group: CommitGroup): Promise<boolean[]> {
    return new Promise((resolve) => {
      this.commits.push({ group, resolve });
      this.commitTimer ??= setTimeout(() => this.flushCommits(), Math.min(COMMIT_RIDE_MAX_MS, Math.max(2, 2 * this.o.lingerMs)));
    });
  }

  /**
   * Pending commits of at most about `maxBatch` ids (whole groups, at least one): one script call stays
   * as short as a claim call, so Redis's other clients never wait behind a long script.
   */
  private takeCommits(): { group: CommitGroup; resolve(committed: boolean[]): void }[] {
    if (this.commitTimer) {
      clearTimeout(this.commitTimer);
      this.commitTimer = undefined;
    }
    let n = 0;
    let k = 0;
    while (k < this.commits.length && (k === 0 || n + this.commits[k]!.group.eventIds.length <= this.o.maxBatch))
      n += this.commits[k++]!.group.eventIds.length;
    const taken = this.commits.slice(0, k);
    this.commits = this.commits.slice(k);
    if (this.commits.length > 0) this.commitTimer = setTimeout(() => this.flushCommits(), 0);
    return taken;
  }

  /** The commits no claim call took along. */
  private flushCommits(): void {
    this.commitTimer = undefined;
    const commits = this.takeCommits();
    if (commits.length === 0) return;
    const groups = commits.map((c) => c.group);
    const run = withTimeout(this.o.claims.claimAndCommit([], '', groups), this.o.timeoutMs, 'commit').then(
      (r) => commits.forEach((c, i) => c.resolve(this.committed(r.committed[i]!))),
      (err: unknown) => commits.forEach((c) => c.resolve(this.commitFailed(c.group, err))),
    );
    this.track(run);
  }

  private committed(ok: boolean[]): boolean[] {
    const lost = ok.filter((x) => !x).length;
    if (lost > 0) this.o.log.warn({ events: lost }, 'claims held by another request at commit');
    return ok;
  }

  /** The events are in Kafka: they are stored, so they count as ours. */
  private commitFailed(group: CommitGroup, err: unknown): boolean[] {
    // The provisional claims expire; a later retry of these ids would be appended again and collapse
    // downstream (sinks are idempotent by event_id).
    this.o.log.warn({ err, events: group.eventIds.length }, 'claim commit failed after Kafka ack');
    return group.eventIds.map(() => true);
  }

  /** Counts `run` in flight until it settles (a counter, not a Set: in-flight.ts says why). */
  private track(run: Promise<unknown>): void {
    this.active++;
    const settled = (): void => {
      if (--this.active === 0 && this.whenIdle.length > 0) for (const resolve of this.whenIdle.splice(0)) resolve();
    };
    void run.then(settled, settled);
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
    while (this.queue.length > 0 || this.claimed.length > 0 || this.active > 0) {
      this.flush();
      this.flushSends();
      if (this.active > 0) await new Promise<void>((resolve) => this.whenIdle.push(resolve));
    }
  }
}
