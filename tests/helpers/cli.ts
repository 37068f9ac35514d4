// Runs the real CLI (bin/collab-loop.js) as a subprocess, as a user would.
import { execa, type ResultPromise } from 'execa';
import path from 'node:path';
import { PROJECT_ROOT } from '../../activities/subprocess/node-script';

const BIN = path.join(PROJECT_ROOT, 'bin', 'collab-loop.js');

export function cli(args: string[], env: Record<string, string> = {}) {
  return execa(process.execPath, [BIN, ...args], { reject: false, env, cwd: PROJECT_ROOT, all: true });
}

/** A long-running CLI process (e.g. `worker`) in its own process group. */
export function cliProcess(args: string[], env: Record<string, string> = {}): ResultPromise {
  return execa(process.execPath, [BIN, ...args], { reject: false, env, cwd: PROJECT_ROOT, all: true, buffer: true });
}
