// A TCP proxy that a test can cut and restore: a real socket with the real server behind it, so an
// outage can be simulated without stopping the shared server.
import net from 'node:net';

export interface TcpProxy {
  port: number;
  url: string;
  /** Refuses new connections and drops the open ones (a server that is down). */
  cut(): void;
  /** Accepts connections but forwards nothing either way (a server or network that hangs). */
  hang(): void;
  /** Back to forwarding; connections that hung are dropped (as their peers would time them out). */
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let up = true;
  let hung = false;
  const sockets = new Set<net.Socket>();
  const silent = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (!up) {
      client.destroy();
      return;
    }
    if (hung) {
      client.on('error', () => {}).pause();
      silent.add(client);
      return;
    }
    const upstream = net.connect(targetPort, targetHost);
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    cut() {
      up = false;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    hang() {
      hung = true;
      for (const s of sockets) {
        s.unpipe();
        s.pause();
        silent.add(s);
      }
    },
    restore() {
      up = true;
      hung = false;
      for (const s of silent) s.destroy();
      silent.clear();
    },
    async close() {
      up = false;
      for (const s of sockets) s.destroy();
      for (const s of silent) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
