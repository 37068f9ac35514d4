// Runs one of the project's own TypeScript entry points in a fresh node process, wherever the worker's cwd is.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** argv for `node` to run `relativeScript` (a .ts file under the project root) from its kept build
 *  (bin/kept-build.js: esbuild, reused while the sources are unchanged), as `node --import tsx` would. */
export function nodeScriptArgv(relativeScript: string, args: string[] = []): [string, string[]] {
  return [process.execPath, [path.join(PROJECT_ROOT, 'bin', 'run-script.js'), path.join(PROJECT_ROOT, relativeScript), ...args]];
}
