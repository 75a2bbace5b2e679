// A minimal server-sent events client for tests (node:http, no EventSource in Node).
import http from 'node:http';

export interface SseFrame {
  event: string;
  data: string;
  at: number;
}

export class SseClient {
  readonly frames: SseFrame[] = [];
  readonly comments: { text: string; at: number }[] = [];
  status = 0;
  /** Set when the server ended the stream (ms since epoch). */
  endedAt = 0;
  private buf = '';
  private waiters: (() => void)[] = [];
  req: http.ClientRequest | null = null;

  feed(chunk: string): void {
    this.buf += chunk;
    let i: number;
    while ((i = this.buf.indexOf('\n\n')) >= 0) {
      const block = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 2);
      let event = 'message';
      const data: string[] = [];
      let isFrame = false;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) this.comments.push({ text: line.slice(1).trim(), at: Date.now() });
        else if (line.startsWith('event:')) {
          event = line.slice(6).trim();
          isFrame = true;
        } else if (line.startsWith('data:')) {
          data.push(line.slice(5).trimStart());
          isFrame = true;
        }
      }
      if (isFrame) this.frames.push({ event, data: data.join('\n'), at: Date.now() });
    }
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves with the first frame (from index `from`) matching `pred`. */
  async waitFor(pred: (f: SseFrame) => boolean, timeoutMs = 5000, from = 0): Promise<SseFrame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const f = this.frames.slice(from).find(pred);
      if (f) return f;
      if (Date.now() > deadline)
        throw new Error(`no matching SSE frame within ${timeoutMs} ms (got ${this.frames.map((x) => x.event).join(',')})`);
      await new Promise<void>((res) => {
        const t = setTimeout(res, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(t);
          res();
        });
      });
    }
  }

  close(): void {
    this.req?.destroy();
  }
}

const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

/** Opens a stream; resolves once the response headers arrived (status in client.status). */
export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const c = new SseClient();
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      c.status = res.statusCode ?? 0;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => c.feed(chunk));
      res.on('end', () => {
        c.endedAt = Date.now();
      });
      res.on('error', () => {});
      resolve(c);
    });
    c.req = req;
    req.on('error', reject);
  });
}
