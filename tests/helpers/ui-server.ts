// A Temporal dev server started the way `demo` and `server --detach` start it (cli/server-control.ts): detached,
// its own process group, logging to <stateDir>/temporal-server.log, with the web UI — on free ports, so tests
// run beside each other and beside a developer's own server on 7233.
import { freePort } from '../../activities/serving/free-port';
import { killProcessGroup } from '../../activities/subprocess/process-group';
import { ensureDevServer, type EnsuredServer } from '../../cli/server-control';

export interface UiServer extends EnsuredServer {
  port: number;
  uiPort: number;
  pid: number;
  log: string;
  stop(): Promise<void>;
}

export async function freePorts(): Promise<{ port: number; uiPort: number }> {
  const port = await freePort();
  let uiPort = await freePort();
  while (uiPort === port) uiPort = await freePort();
  return { port, uiPort };
}

/** Starts a server on the given state dir (a restart on the same SQLite file when ports are given again). */
export async function startUiServer(stateDir: string, ports?: { port: number; uiPort: number }): Promise<UiServer> {
  const p = ports ?? (await freePorts());
  const s = await ensureDevServer(stateDir, p);
  if (!s.started || !s.pid || !s.log) throw new Error(`port ${p.port} was taken before the test server could bind it`);
  return { ...s, ...p, pid: s.pid, log: s.log, stop: () => killProcessGroup(s.pid!, 5000) };
}
