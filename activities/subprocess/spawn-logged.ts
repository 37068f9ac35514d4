// A child process whose stdout and stderr append to a log file it holds itself. The file is opened here and handed
// over as the child's own descriptor: a pipe through this process (what execa's `{file}` target does) would die with
// it, and the first line a detached child wrote after its starter exited would kill it with SIGPIPE.
import { type ChildProcess, spawn, type SpawnOptions } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';

/** Spawns `cmd` logging to `logFile` (appended; its directory created); this process's copy of the descriptor is
 *  closed once the child has its own. */
export function spawnLogged(cmd: string, args: string[], logFile: string, o: Omit<SpawnOptions, 'stdio'> = {}): ChildProcess {
  mkdirSync(path.dirname(logFile), { recursive: true });
  const fd = openSync(logFile, 'a');
  try {
    return spawn(cmd, args, { ...o, stdio: ['ignore', fd, fd] });
  } finally {
    closeSync(fd);
  }
}
