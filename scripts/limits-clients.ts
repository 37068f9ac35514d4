// Client processes for shared endpoint limits (tests/integration/activities/llm/shared-limits.test.ts, `bench shared-limits`): each runs
// limits-client-main.ts, which prints "ready" before its first call (with waitForGo it then waits for a line on
// stdin, so several processes start together) and one JSON line (ClientResult) when every call is answered.
import { execa, type ResultPromise } from 'execa';
import { nodeScriptArgv, PROJECT_ROOT } from '../activities/subprocess/node-script';

export interface ClientJob {
  baseUrl: string;
  model: string;
  maxConcurrency: number;
  tokensPerMinute?: number;
  /** llm.sharedLimits; absent: this process's own limiter. */
  sharedLimits?: { redis: string; leaseSeconds?: number };
  calls: number;
  /** Calls this process keeps in flight (its shards' conversations). */
  inFlight: number;
  label: string;
  /** Characters of each prompt (≥ the label and number). */
  promptChars?: number;
  maxTokens?: number;
  waitForGo?: boolean;
}

export interface ClientResult {
  calls: number;
  seconds: number;
  /** When each call was answered (ms since the epoch). */
  answeredAt: number[];
}

export interface ClientProcess {
  child: ResultPromise;
  /** It is about to send (or, with waitForGo, waiting for the word). */
  ready: Promise<void>;
  done: Promise<ClientResult>;
}

export function startClient(job: ClientJob): ClientProcess {
  const [cmd, args] = nodeScriptArgv('scripts/limits-client-main.ts', [JSON.stringify(job)]);
  const child = execa(cmd, args, { cwd: PROJECT_ROOT, reject: false, stdin: 'pipe' });
  const ready = new Promise<void>((resolve) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d;
      if (out.includes('ready')) resolve();
    });
  });
  const done = child.then((r) => {
    if (r.exitCode !== 0) throw new Error(`client ${job.label} exited ${r.exitCode ?? r.signal}: ${r.stderr}`);
    return JSON.parse(String(r.stdout).trim().split('\n').pop()!) as ClientResult;
  });
  return { child, ready, done };
}

/** Starts clients of waitForGo jobs together: each sends its first call once all are ready. */
export async function together(clients: ClientProcess[]): Promise<Array<ClientResult>> {
  await Promise.all(clients.map((c) => Promise.race([c.ready, c.done])));
  for (const c of clients) c.child.stdin!.write('go\n');
  return Promise.all(clients.map((c) => c.done));
}
