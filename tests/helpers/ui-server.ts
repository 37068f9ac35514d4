// A Temporal dev server started the way `demo` and `server --detach` start it (cli/server-control.ts): detached,
// its own process group, logging to <stateDir>/temporal-server.log, with the web UI — on free ports, so tests
// run beside each other and beside a developer's own server on 7233.
import { stablePort } from '../../activities/serving/free-port';
import { killProcessGroup } from '../../activities/subprocess/process-group';
import { DevServerExited } from '../../cli/dev-server';
import { ensureDevServer, type EnsuredServer } from '../../cli/server-control';

export interface UiServer extends EnsuredServer {
  port: number;
  uiPort: number;
  pid: number;
  log: string;
  stop(): Promise<void>;
}

/** Below the ephemeral range (stablePort): while a test holds the server down, no outbound connection takes them. */
export async function freePorts(): Promise<{ port: number; uiPort: number }> {
  const port = await stablePort();
  return { port, uiPort: await stablePort('127.0.0.1', [port]) };
}

/** Tries per start: the server also binds ports it picks itself (HTTP API, metrics, its services' membership), and on
 *  a machine running a suite beside it another process can take one between its pick and its bind. */
const START_ATTEMPTS = 3;

/** Starts a server on the given state dir (a restart on the same SQLite file when ports are given again). A server that
 *  exits before listening is started again: on new ports for a first start, on the same ones for a restart. */
export async function startUiServer(stateDir: string, ports?: { port: number; uiPort: number }): Promise<UiServer> {
  for (let attempt = 1; ; attempt++) {
    const p = ports ?? (await freePorts());
    try {
      const s = await ensureDevServer(stateDir, p);
      if (!s.started || !s.pid || !s.log) throw new Error(`port ${p.port} was taken before the test server could bind it`);
      return { ...s, ...p, pid: s.pid, log: s.log, stop: () => killProcessGroup(s.pid!, 5000) };
    } catch (e) {
      if (!(e instanceof DevServerExited) || attempt === START_ATTEMPTS) throw e;
      console.warn(`test Temporal server: start ${attempt} of ${START_ATTEMPTS} failed, starting again: ${e.message}`);
    }
  }
}
