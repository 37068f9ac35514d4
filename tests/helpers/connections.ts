// Counts the connections a test server accepts, and proves the count final without waiting "long enough": once the
// code under test has exited (browser closed, sandbox run over), settle() connects once more and waits until the
// server has accepted that sentinel. The kernel's accept queue is FIFO, so every connection made before the
// sentinel has been accepted, and counted, by then.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';

export interface ConnectionWatch {
  /** Connections accepted so far, sentinels excluded. */
  count(): number;
  /** Resolves once every connection made before this call has been accepted. */
  settle(): Promise<void>;
}

export function watchConnections(server: net.Server): ConnectionWatch {
  const remotePorts: number[] = [];
  const sentinels = new Set<number>();
  let wake: (() => void) | undefined;
  // Prepended: the test's own listener may destroy the socket, after which its remote port is unreadable.
  server.prependListener('connection', (socket: net.Socket) => {
    remotePorts.push(socket.remotePort ?? -1);
    wake?.();
  });
  return {
    count: () => remotePorts.filter((p) => !sentinels.has(p)).length,
    async settle() {
      const { port, address } = server.address() as AddressInfo;
      const host = address === '0.0.0.0' || address === '::' ? '127.0.0.1' : address;
      const client = net.connect(port, host);
      client.on('error', () => undefined); // the server may reset it; only its acceptance matters
      await once(client, 'connect');
      const mine = client.localPort!;
      sentinels.add(mine);
      while (!remotePorts.includes(mine))
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      wake = undefined;
      client.destroy();
    },
  };
}
