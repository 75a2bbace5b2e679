// The live stream (GET /api/v1/stream/events) read with fetch, so the access token travels in the
// Authorization header and never in a URL (EventSource cannot send headers). Reconnects after a drop,
// refreshing the access token first when the stream answered 401.
import { getAccessToken, refreshSession } from './client';

export interface LiveFrame {
  event: string;
  data: unknown;
}

export interface LiveConnection {
  close(): void;
}

export function openLiveStream(onFrame: (f: LiveFrame) => void, onState: (connected: boolean) => void): LiveConnection {
  let stopped = false;
  let controller: AbortController | null = null;
  let retryMs = 3000;

  const run = async () => {
    while (!stopped) {
      controller = new AbortController();
      try {
        const token = getAccessToken();
        const res = await fetch('/api/v1/stream/events', {
          headers: { accept: 'text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
          signal: controller.signal,
          cache: 'no-store',
        });
        if (res.status === 401) {
          if (!(await refreshSession())) return onState(false);
          continue;
        }
        if (!res.ok || !res.body) throw new Error(`stream answered ${res.status}`);
        onState(true);
        await readFrames(res.body, onFrame, (ms) => (retryMs = ms));
      } catch {
        // dropped or aborted: fall through to the retry
      }
      onState(false);
      if (!stopped) await new Promise((r) => setTimeout(r, retryMs));
    }
  };
  void run();
  return {
    close() {
      stopped = true;
      controller?.abort();
    },
  };
}

async function readFrames(body: ReadableStream<Uint8Array>, onFrame: (f: LiveFrame) => void, onRetry: (ms: number) => void) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
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
