// Finds or starts the Temporal dev server for one-shot commands (demo, eval, bench) and `server --detach`.
import { once } from 'node:events';
import path from 'node:path';
import { extraNamespaces, portOpen, startDevServer, waitForPort } from './dev-server';
import { temporalTarget } from './temporal-config';

export interface EnsuredServer {
  address: string;
  started: boolean;
  uiUrl?: string;
  pid?: number;
  log?: string;
}

export interface DevServerPorts {
  port?: number;
  uiPort?: number;
}

/** A server already listening is reused; otherwise one is started detached, logging to <stateDir>/temporal-server.log,
 *  and keeps running (for the UI) after this process exits. */
export async function ensureDevServer(stateDir: string, ports: DevServerPorts = {}): Promise<EnsuredServer> {
  const port = ports.port ?? 7233;
  const uiUrl = `http://localhost:${ports.uiPort ?? 8233}`;
  const target = temporalTarget();
  if (target.addressConfigured && ports.port === undefined) return { address: target.address, started: false };
  if (await portOpen(port)) return { address: `127.0.0.1:${port}`, started: false, uiUrl };
  const log = path.join(stateDir, 'temporal-server.log');
  const namespaces = extraNamespaces(target.namespace);
  const child = startDevServer({ stateDir, log, detached: true, port, uiPort: ports.uiPort, namespaces });
  child.unref();
  await waitForPort(port, 30_000, child, log);
  if (ports.uiPort !== 0) await waitForPort(ports.uiPort ?? 8233, 30_000, child, log); // the link printed next must open
  return { address: `127.0.0.1:${port}`, started: true, uiUrl, pid: child.pid, log };
}

/** The foreground server of `collab-loop server`: runs until it exits (Ctrl-C reaches both). */
export async function runDevServer(o: { stateDir: string; port: number; uiPort: number }): Promise<number> {
  const child = startDevServer({ ...o, log: 'inherit', namespaces: extraNamespaces(temporalTarget().namespace) });
  // A signal sent to this process alone (kill <pid>, a supervisor) must reach the server too.
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => child.kill(sig));
  const [code] = (await once(child, 'exit')) as [number | null];
  return code ?? 0;
}
