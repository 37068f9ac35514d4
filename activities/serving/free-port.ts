import { readFileSync } from 'node:fs';
import net from 'node:net';

/** Binds `port` on `host` (0: any free one) and lets it go again: the port it bound, or the bind's error. */
function probeBind(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(port, host, () => {
      const bound = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(bound));
    });
  });
}

/** A TCP port that was free a moment ago (the server binds it next; a race loses only a retry). */
export const freePort = (host = '127.0.0.1'): Promise<number> => probeBind(0, host);

/** The kernel's ephemeral range starts here: outbound connections and port-0 binds (freePort) take ports from it. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 12_000) return low;
  } catch {
    /* not Linux: IANA's range */
  }
  return 49_152;
}

/** A free port below the ephemeral range, for a server that is stopped and started again on the same ports (an
 *  outage rehearsal): while it is down, no outbound connection and no freePort() caller can take its port. */
export async function stablePort(host = '127.0.0.1', taken: readonly number[] = []): Promise<number> {
  const low = 10_000;
  const high = ephemeralLow() - 1;
  for (let i = 0; i < 200; i++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (taken.includes(port)) continue;
    const bound = await probeBind(port, host).catch(() => undefined);
    if (bound !== undefined) return bound;
  }
  throw new Error(`no free port between ${low} and ${high} on ${host}`);
}
