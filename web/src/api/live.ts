// The live stream (GET /api/v1/stream/events) read with fetch, so the access token travels in the
// Authorization header and never in a URL (EventSource cannot send headers). Reconnects after a drop,
// refreshing the access token first when the stream answered 401; a watchdog on the keep-alive and the
// browser's online/offline events make the connected state true (see openLiveStream).
import { getAccessToken, refreshSession } from './client';

export interface LiveFrame {
  event: string;
  data: unknown;
}

export interface LiveConnection {
  close(): void;
}

/** Keep-alive interval assumed until the stream's `ready` frame names it (the server's default). */
const DEFAULT_KEEPALIVE_SECONDS = 15;

/**
 * Opens the stream and keeps it open. `onState(true)` once the stream answered, `onState(false)` the
 * moment it is known to be gone: the response ended or failed, the browser went offline, or the
 * watchdog fired. The watchdog: the server writes at least a keep-alive comment every
 * `keepalive_seconds` (from the `ready` frame), so a stream silent for two intervals (plus a second of
 * slack) is dead even when the socket looks open (a hung proxy, a sleeping laptop, a cut Wi-Fi): it is
 * aborted and reconnected. The same bound applies to a connect that hangs before its answer.
 */
export function openLiveStream(onFrame: (f: LiveFrame) => void, onState: (connected: boolean) => void): LiveConnection {
  let stopped = false;
  let controller: AbortController | null = null;
  let retryMs = 3000;
  let keepAliveMs = DEFAULT_KEEPALIVE_SECONDS * 1000;
  let watchdog: ReturnType<typeof setTimeout> | null = null;
  let wake: (() => void) | null = null;

  const disarm = () => {
    if (watchdog) clearTimeout(watchdog);
    watchdog = null;
  };
  const arm = () => {
    disarm();
    const c = controller;
    watchdog = setTimeout(() => c?.abort(), 2 * keepAliveMs + 1000);
  };
  /** Waits `ms`, or less when the browser comes back online or the stream is closed. */
  const pause = (ms: number) =>
    new Promise<void>((r) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        wake = null;
        r();
      }
      wake = done;
    });
  const offline = () => {
    onState(false);
    controller?.abort();
  };
  const online = () => wake?.();
  window.addEventListener('offline', offline);
  window.addEventListener('online', online);

  const run = async () => {
    while (!stopped) {
      // Offline: nothing to try until the browser says it is back (the `online` event wakes us).
      if (!navigator.onLine) {
        onState(false);
        await pause(60_000);
        continue;
      }
      controller = new AbortController();
      arm();
      try {
        const token = getAccessToken();
        const res = await fetch('/api/v1/stream/events', {
          headers: { accept: 'text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
          signal: controller.signal,
          cache: 'no-store',
        });
        if (res.status === 401) {
          disarm();
          if (!(await refreshSession())) return onState(false);
          continue;
        }
        if (!res.ok || !res.body) throw new Error(`stream answered ${res.status}`);
        arm();
        onState(true);
        await readFrames(
          res.body,
          (f) => {
            if (f.event === 'ready') {
              const s = (f.data as { keepalive_seconds?: unknown }).keepalive_seconds;
              if (typeof s === 'number' && s > 0) keepAliveMs = s * 1000;
              arm();
            }
            onFrame(f);
          },
          (ms) => (retryMs = ms),
          arm,
        );
      } catch {
        // dropped, aborted (watchdog, offline, close): fall through to the retry
      }
      disarm();
      onState(false);
      if (!stopped) await pause(retryMs);
    }
  };
  void run();
  return {
    close() {
      stopped = true;
      disarm();
      window.removeEventListener('offline', offline);
      window.removeEventListener('online', online);
      controller?.abort();
      wake?.();
    },
  };
}

async function readFrames(
  body: ReadableStream<Uint8Array>,
  onFrame: (f: LiveFrame) => void,
  onRetry: (ms: number) => void,
  onBytes: () => void,
) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    onBytes(); // anything, a keep-alive comment too, proves the stream alive
    buf += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    let i: number;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = val;
        else if (field === 'data') data.push(val);
        else if (field === 'retry' && /^\d+$/.test(val)) onRetry(Number(val));
      }
      if (data.length === 0) continue;
      try {
        onFrame({ event, data: JSON.parse(data.join('\n')) });
      } catch {
        // not JSON: not one of ours
      }
    }
  }
}
