// A real TCP proxy on loopback for network-hiccup tests: it forwards connections to a target
// port and can cut every open connection and refuse new ones for a while, or freeze them: stop
// forwarding without closing anything, as a link that went half-open does.
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Destroy every open connection and refuse new ones until restore(). */
  cut(): void;
  /** Stop forwarding on every open connection, in both directions, without closing any. */
  freeze(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: () => number): Promise<TcpProxy> {
  const open = new Set<Socket>();
  const pairs: [Socket, Socket][] = [];
  let refusing = false;
  const server: Server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort(), '127.0.0.1');
    open.add(client);
    open.add(upstream);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
    pairs.push([client, upstream]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      refusing = true;
      for (const s of open) s.destroy();
      open.clear();
    },
    freeze() {
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    restore() {
      refusing = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
