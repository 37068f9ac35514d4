// Runs one of the project's own TypeScript entry points in a fresh node process, wherever the worker's cwd is.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const require = createRequire(import.meta.url);

/** argv for `node` to run `relativeScript` (a .ts file under the project root) with tsx. */
export function nodeScriptArgv(relativeScript: string, args: string[] = []): [string, string[]] {
  const tsx = pathToFileURL(require.resolve('tsx')).href;
  return [process.execPath, ['--import', tsx, path.join(PROJECT_ROOT, relativeScript), ...args]];
}
