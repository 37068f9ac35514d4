// Is this machine able to run the sandbox: which isolation it has (bwrap when installed, else unshare), and the
// tools, interpreter and packages the command (sandbox-command.ts) needs. Errors say what to install.
import { accessSync, constants as fsConstants, existsSync } from 'node:fs';
import { SANDBOX_PYTHON, SANDBOX_TOOLS, type SandboxIsolation } from './sandbox-command';
import { SandboxConfigError } from './sandbox-config-error';
import { SANDBOX_REQUIREMENTS, sandboxPackagesDir } from './sandbox-packages';

function executable(file: string): boolean {
  try {
    accessSync(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

let loggedIsolation: SandboxIsolation | undefined;

/** bwrap when installed, else unshare; logs the choice once per process. */
export function defaultIsolation(): SandboxIsolation {
  const kind: SandboxIsolation = executable(SANDBOX_TOOLS.bwrap) ? 'bwrap' : 'unshare';
  if (loggedIsolation !== kind) {
    loggedIsolation = kind;
    // Only the weaker fallback is worth a line, and on stderr: stdout carries data (`collab-loop score`).
    if (kind !== 'bwrap')
      console.warn(
        '[sandbox] bubblewrap is not installed: falling back to unshare (no network, own pid namespace, but the host filesystem is visible as far as permissions allow); install it with `node bin/setup.js` or `apt-get install bubblewrap`',
      );
  }
  return kind;
}

/** Throws SandboxConfigError unless this process is root and every program and package of the command is installed. */
export function checkTools(isolation: SandboxIsolation): void {
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    throw new SandboxConfigError(
      'the Python sandbox must run as root: it switches each run to a per-slot uid (60000 + slot); start the sandbox worker as root',
    );
  }
  if (!executable(SANDBOX_PYTHON))
    throw new SandboxConfigError(`${SANDBOX_PYTHON} is missing: the sandbox runs the system Python (apt-get install python3)`);
  const packages = sandboxPackagesDir(SANDBOX_PYTHON);
  if (!existsSync(packages))
    throw new SandboxConfigError(
      `the sandbox's Python packages (${SANDBOX_REQUIREMENTS}) are not installed in ${packages}: run \`node bin/setup.js\` as root`,
    );
  const tools = isolation === 'bwrap' ? (['prlimit', 'bwrap'] as const) : (['timeout', 'unshare', 'prlimit', 'setpriv'] as const);
  for (const tool of tools) {
    if (!executable(SANDBOX_TOOLS[tool]))
      throw new SandboxConfigError(
        `${SANDBOX_TOOLS[tool]} is missing (${tool === 'timeout' ? 'coreutils' : tool === 'bwrap' ? 'bubblewrap' : 'util-linux'}): the Python sandbox needs it`,
      );
  }
}
