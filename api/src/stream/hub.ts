// One Redis subscriber per API process, fanned out to every SSE client of that process. Messages on
// the live channel (published by the `stream` processor and by problem actions) are JSON objects
// `{kind: 'events' | 'problems' | 'hosts', ...}`; each becomes one SSE frame named after its kind.
// A comment line goes to every client each keep-alive interval so proxies keep the connection open.
// The hub also counts each client's owner (user, mobile device) for the per-user and per-device caps:
// the counts are this process's (each API process caps its own streams).
import type { ServerResponse } from 'node:http';
import type { Redis } from '@watchpost/runtime';
import { counter, gauge } from '@watchpost/runtime';
import { LIVE_KINDS } from '@watchpost/schemas';

/** A client that has this much unsent output is too slow: it is disconnected (it may reconnect). */
const MAX_BUFFERED_BYTES = 1024 * 1024;

const clientsGauge = gauge('watchpost_sse_clients', 'Connected live-stream (SSE) clients');
const framesCounter = counter('watchpost_sse_messages_total', 'Live messages fanned out to SSE clients', ['kind']);
const droppedCounter = counter('watchpost_sse_dropped_clients_total', 'SSE clients disconnected for being too slow');

/** The SSE frame of one live message, or null when the message is not a live message. */
export function sseFrame(message: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const kind = (parsed as { kind?: unknown }).kind;
  if (typeof kind !== 'string' || !(LIVE_KINDS as readonly string[]).includes(kind)) return null;
  // Re-serialised: one line of JSON, so the frame has exactly one data line.
  return `event: ${kind}\ndata: ${JSON.stringify(parsed)}\n\n`;
}

export const KEEPALIVE_FRAME = ': keep-alive\n\n';

/** Who holds a stream: its user, and the mobile device when it is a device's session. */
export interface StreamOwner {
  userId: number;
  deviceId: number | null;
}

export class LiveHub {
  private readonly clients = new Set<ServerResponse>();
  /** Owner of each client, and the number of streams per user and per device (oldest first). */
  private readonly owners = new Map<ServerResponse, StreamOwner>();
  private readonly perUser = new Map<number, number>();
  private readonly perDevice = new Map<number, Set<ServerResponse>>();
  private readonly makeSubscriber: () => Redis;
  private readonly channel: string;
  private readonly keepAliveMs: number;
  private subscriber: Redis | null = null;
  private ready: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(opts: { makeSubscriber: () => Redis; channel: string; keepAliveMs: number }) {
    this.makeSubscriber = opts.makeSubscriber;
    this.channel = opts.channel;
    this.keepAliveMs = opts.keepAliveMs;
  }

  get size(): number {
    return this.clients.size;
  }

  /**
   * Subscribes on first use; later calls share the one subscription. A first subscription that fails
   * (Redis down when the first stream connects) is forgotten, so the next stream tries again instead
   * of meeting the memoised failure until the process restarts.
   */
  start(): Promise<void> {
    if (this.ready) return this.ready;
    const sub = this.makeSubscriber();
    this.subscriber = sub;
    sub.on('message', (channel: string, message: string) => {
      if (channel === this.channel) this.broadcast(message);
    });
    sub.on('error', () => {}); // ioredis reconnects and resubscribes by itself
    const ready = sub.subscribe(this.channel).then(
      () => undefined,
      (err: unknown) => {
        if (this.ready === ready) {
          this.ready = null;
          this.subscriber = null;
        }
        sub.disconnect();
        throw err;
      },
    );
    this.ready = ready;
    if (!this.timer) {
      this.timer = setInterval(() => this.writeAll(KEEPALIVE_FRAME), this.keepAliveMs);
      this.timer.unref();
    }
    return ready;
  }

  /** Streams this process holds for a user, or for a device. */
  countOf(owner: { userId: number } | { deviceId: number }): number {
    return 'userId' in owner ? (this.perUser.get(owner.userId) ?? 0) : (this.perDevice.get(owner.deviceId)?.size ?? 0);
  }

  /**
   * A device's streams beyond `keep - 1`, oldest first: ended to make room for its new one (a phone that
   * changed networks reconnects while its old connection still looks open here).
   */
  endOldestOf(deviceId: number, keep: number): void {
    const streams = this.perDevice.get(deviceId);
    if (!streams) return;
    for (const res of [...streams].slice(0, Math.max(0, streams.size - keep + 1))) {
      this.release(res);
      res.end();
    }
  }

  add(res: ServerResponse, owner?: StreamOwner): void {
    if (this.closed) {
      res.end();
      return;
    }
    this.clients.add(res);
    if (owner) {
      this.owners.set(res, owner);
      this.perUser.set(owner.userId, (this.perUser.get(owner.userId) ?? 0) + 1);
      if (owner.deviceId !== null) {
        const set = this.perDevice.get(owner.deviceId) ?? new Set<ServerResponse>();
        set.add(res);
        this.perDevice.set(owner.deviceId, set);
      }
    }
    clientsGauge.set(this.clients.size);
    res.on('close', () => this.release(res));
  }

  /** Forgets a client (closed, dropped or ended): once, however often called. */
  private release(res: ServerResponse): void {
    this.clients.delete(res);
    clientsGauge.set(this.clients.size);
    const owner = this.owners.get(res);
    if (!owner) return;
    this.owners.delete(res);
    const n = (this.perUser.get(owner.userId) ?? 1) - 1;
    if (n > 0) this.perUser.set(owner.userId, n);
    else this.perUser.delete(owner.userId);
    if (owner.deviceId !== null) {
      const set = this.perDevice.get(owner.deviceId);
      set?.delete(res);
      if (set && set.size === 0) this.perDevice.delete(owner.deviceId);
    }
  }

  broadcast(message: string): void {
    const frame = sseFrame(message);
    if (!frame) return;
    framesCounter.inc({ kind: frame.slice(7, frame.indexOf('\n')) });
    this.writeAll(frame);
  }

  private writeAll(frame: string): void {
    for (const res of this.clients) {
      if (res.writableLength > MAX_BUFFERED_BYTES) {
        droppedCounter.inc();
        this.release(res);
        res.destroy();
        continue;
      }
      res.write(frame);
    }
    clientsGauge.set(this.clients.size);
  }

  /** Ends every client stream and the subscription (called before the server closes). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    for (const res of this.clients) res.end();
    this.clients.clear();
    this.owners.clear();
    this.perUser.clear();
    this.perDevice.clear();
    clientsGauge.set(0);
    if (this.subscriber) await this.subscriber.quit().catch(() => this.subscriber?.disconnect());
  }
}
