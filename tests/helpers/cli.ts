// Runs the real CLI (bin/collab-loop.js) as a subprocess, as a user would.
import { execa, type ResultPromise } from 'execa';
import path from 'node:path';
import { PROJECT_ROOT } from '../../activities/subprocess/node-script';

const BIN = path.join(PROJECT_ROOT, 'bin', 'collab-loop.js');

/** `node`: another Node binary than this one (tests/integration/cli/node-versions.test.ts). */
export function cli(args: string[], env: Record<string, string> = {}, node = process.execPath) {
  return execa(node, [BIN, ...args], { reject: false, env, cwd: PROJECT_ROOT, all: true });
}

/** A long-running CLI process (e.g. `worker`) in its own process group. */
export function cliProcess(args: string[], env: Record<string, string> = {}, cwd = PROJECT_ROOT): ResultPromise {
  return execa(process.execPath, [BIN, ...args], { reject: false, env, cwd, all: true, buffer: true });
}

/** Everything a process has printed so far (stdout and stderr). */
export function collectOutput(p: ResultPromise): () => string {
  let out = '';
  p.all!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  return () => out;
}

/** `collab-loop worker` once it polls; `stop` (SIGINT, then its exit) for the test's cleanup. */
export async function startCliWorker(env: Record<string, string>, args: string[] = [], cwd?: string) {
  const worker = cliProcess(['worker', ...args], env, cwd);
  const output = collectOutput(worker);
  const stop = () => {
    worker.kill('SIGINT');
    return worker;
  };
  const deadline = Date.now() + 60_000;
  while (!output().includes('collab-loop worker polling')) {
    if (Date.now() > deadline || worker.exitCode !== null) {
      await stop();
      throw new Error(`the worker did not start:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { worker, output, stop };
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The CLI on a pseudo-terminal, as in a user's terminal window (200 columns): util-linux `script` gives it one
 *  (bsdutils, essential on Debian) and passes on its exit code. The output is the raw terminal stream. */
export function cliInTerminal(args: string[], env: Record<string, string> = {}): ResultPromise {
  const command = `stty cols 200 rows 50 && exec ${[process.execPath, BIN, ...args].map(shellQuote).join(' ')}`;
  return execa('script', ['-qfec', command, '/dev/null'], {
    reject: false,
    env,
    cwd: PROJECT_ROOT,
    all: true,
    buffer: true,
    stdin: 'ignore',
  });
}
