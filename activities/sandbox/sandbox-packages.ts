// The Python packages the sandbox's interpreter imports beyond the standard library: requirements.txt beside this
// file (numpy, pandas: what ColBench's reference functions may import). bin/setup.js installs them for
// /usr/bin/python3 under /usr/local, which the sandbox sees read-only with the rest of /usr; the sandbox appends the
// directory to sys.path, after the standard library, so no package can shadow a standard module.
// The directory is named for the interpreter (wheels are built per Python minor version) and the list's content, so a
// changed list or a Debian upgrade of python3 is a directory setup has not installed yet, never a stale one.
// Keep the rule in step with bin/setup.js (sandboxPackages), which runs before any dependency is installed.
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SANDBOX_REQUIREMENTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'requirements.txt');
const PACKAGES_ROOT = '/usr/local/lib/collab-loop/sandbox-python';

let dir: string | undefined;

/** Where the current list is installed for `python` (whether or not it is yet). */
export function sandboxPackagesDir(python: string): string {
  if (!dir) {
    const key = createHash('sha256').update(readFileSync(SANDBOX_REQUIREMENTS)).digest('hex').slice(0, 16);
    dir = path.join(PACKAGES_ROOT, `${path.basename(realpathSync(python))}-${key}`);
  }
  return dir;
}
