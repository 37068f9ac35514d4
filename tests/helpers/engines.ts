// The engines' own environments, as `node bin/setup.js --engines` installs them (requirements-<engine>.txt), for the
// engine tests (`npm run test:engines`).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../activities/subprocess/node-script';

export type Engine = 'vllm' | 'fairseq2' | 'openrlhf' | 'verl';

export const enginePython = (engine: Engine) => path.join(PROJECT_ROOT, `.venv-${engine}`, 'bin', 'python');

/** Stops the test at once, naming the install command, when an engine's environment is missing. */
export function requireEngines(...engines: Engine[]): void {
  for (const e of engines) {
    const p = enginePython(e);
    if (!existsSync(p)) throw new Error(`${p} is missing: run \`node bin/setup.js --engines\``);
  }
}
