// The Temporal dev server (`temporal server start-dev`) with a persistent SQLite file, our search attributes
// registered, and the UI. Used by `collab-loop server`, the demo and the benchmark.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { SEARCH_ATTRIBUTES } from '../contracts/messages';
import { logTail } from '../activities/subprocess/log-tail';
import { spawnLogged } from '../activities/subprocess/spawn-logged';
import { DEFAULT_NAMESPACE } from './temporal-config';
import { temporalCliPath } from './temporal-cli';

const SA_TYPE_NAMES: Record<string, string> = { KEYWORD: 'Keyword', INT: 'Int', BOOL: 'Bool', TEXT: 'Text', DOUBLE: 'Double' };

export interface DevServerOptions {
  stateDir: string;
  port?: number;
  uiPort?: number;
  headless?: boolean;
  /** Where the server's output goes: a file (appended), or 'inherit' for the foreground `collab-loop server`. */
  log: 'inherit' | string;
  /** Own process group, not killed with the starter: for a server that outlives the command that started it. */
  detached?: boolean;
  /** Namespaces created at launch besides "default". */
  namespaces?: string[];
}

/** A dev server we start serves the configured namespace too, so that TEMPORAL_NAMESPACE works against it. */
export const extraNamespaces = (namespace: string): string[] => (namespace === DEFAULT_NAMESPACE ? [] : [namespace]);

export function devServerArgs(o: DevServerOptions): string[] {
  const port = o.port ?? 7233;
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--db-filename',
    path.join(o.stateDir, 'temporal.sqlite'),
    '--log-level',
    'warn',
  ];
  if (o.headless) args.push('--headless');
  else args.push('--ui-port', String(o.uiPort ?? 8233));
  for (const ns of o.namespaces ?? []) args.push('--namespace', ns);
  for (const sa of SEARCH_ATTRIBUTES) args.push('--search-attribute', `${sa.name}=${SA_TYPE_NAMES[sa.type]}`);
  return args;
}

export function portOpen(port: number, host = '127.0.0.1', timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ port, host });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/** The server process ended before its port opened: most often a port it binds was taken (its log says which). */
export class DevServerExited extends Error {}

/** `log`: the server's log file, whose last lines an exit before listening quotes (usually the port it could not bind). */
export async function waitForPort(port: number, timeoutMs: number, child?: ChildProcess, log?: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  child?.once?.('exit', () => {
    exited = true;
  });
  while (Date.now() < deadline) {
    if (await portOpen(port)) return;
    if (exited)
      throw new DevServerExited(
        `the Temporal dev server exited before listening on ${port}${log ? `. Last lines of ${log}:\n${logTail(log)}` : ''}`,
      );
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the Temporal dev server did not listen on 127.0.0.1:${port} within ${timeoutMs / 1000}s`);
}

/** The server logs to its own descriptor of the log file (spawnLogged): a detached server outlives its starter and
 *  still writes (the UI makes it: a WARN whenever it reads a long history). */
export function startDevServer(o: DevServerOptions): ChildProcess {
  mkdirSync(o.stateDir, { recursive: true });
  return o.log === 'inherit'
    ? spawn(temporalCliPath(), devServerArgs(o), { stdio: ['ignore', 'inherit', 'inherit'], detached: o.detached })
    : spawnLogged(temporalCliPath(), devServerArgs(o), o.log, { detached: o.detached });
}
