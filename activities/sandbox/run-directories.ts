// The run's private directory (seen at /sandbox inside bwrap): created with the caller's files before the run,
// read back and removed after it. Only root and the run's slot can reach a run's files.
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, lstatSync, mkdirSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { lstat, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SandboxConfigError } from './sandbox-config-error';

/** Where run directories live: root-owned, mode 0711, so no sandbox uid can list the others. */
const BASE_DIR = path.join(os.tmpdir(), 'collab-loop-sandbox');

function validName(name: string): boolean {
  return name.length > 0 && !path.isAbsolute(name) && !name.split(/[\\/]/).some((p) => p === '..' || p === '');
}

/** Throws SandboxConfigError unless every file name stays inside the run directory and `script` is one of them. */
export function checkRunFiles(files: Record<string, string | Uint8Array>, script: string): void {
  for (const name of [...Object.keys(files), script]) {
    if (!validName(name))
      throw new SandboxConfigError(`sandbox file name must be relative and stay inside the run directory: ${JSON.stringify(name)}`);
  }
  if (!(script in files)) throw new SandboxConfigError(`sandbox script ${script} is not among the files given`);
}

let baseDirReady = false;

/** The first directory above `dir` that other users cannot enter (no o+x), if any: a sandbox uid could not reach
 *  a run directory below it, and bwrap would only say "Can't find source path … Permission denied". */
export function unenterableAncestor(dir: string): string | undefined {
  let start = path.dirname(dir);
  try {
    start = realpathSync(start); // a symlinked TMPDIR: the directories that count are those it leads to
  } catch {
    /* not created yet: mkdir makes it */
  }
  for (let d = start; ; d = path.dirname(d)) {
    try {
      if ((statSync(d).mode & 0o001) === 0) return d;
    } catch {
      /* not created yet: mkdir makes it */
    }
    if (d === path.dirname(d)) return undefined;
  }
}

// Synchronous on purpose: a handful of small files, where each async call would cost a thread-pool round trip
// (measurable against a ~30 ms run); the event loop is held for well under a millisecond.
export function makeRunDir(files: Record<string, string | Uint8Array>, uid: number, writable: boolean): string {
  if (!baseDirReady) {
    const closed = unenterableAncestor(BASE_DIR);
    if (closed)
      throw new SandboxConfigError(
        `the sandbox's run directories are under ${BASE_DIR}, but ${closed} cannot be entered by other users (the sandbox runs code as unprivileged uids): point TMPDIR at a directory every user can enter, such as /tmp, or chmod o+x ${closed}`,
      );
    mkdirSync(BASE_DIR, { recursive: true, mode: 0o711 });
    chownSync(BASE_DIR, 0, 0);
    chmodSync(BASE_DIR, 0o711);
    baseDirReady = true;
    removeStaleRunDirs();
  }
  const dir = path.join(BASE_DIR, `run-${randomBytes(8).toString('hex')}`);
  mkdirSync(dir, { mode: 0o700 });
  // Read-only: root owns the files (0644) inside a directory only root and the slot's gid may enter (0750), so
  // no other sandbox uid can reach them (that matters for the unshare fallback, where the host filesystem is
  // visible). Read-write: the slot's uid owns everything (0700/0600).
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dir, name);
    const parent = path.dirname(file);
    if (parent !== dir) {
      mkdirSync(parent, { recursive: true, mode: 0o755 });
      if (writable) for (let d = parent; d !== dir; d = path.dirname(d)) chownSync(d, uid, uid);
    }
    writeFileSync(file, content, { mode: writable ? 0o600 : 0o644 });
    if (writable) chownSync(file, uid, uid);
  }
  chownSync(dir, writable ? uid : 0, uid);
  chmodSync(dir, writable ? 0o700 : 0o750);
  return dir;
}

/** Run directories are removed after each run; only a worker killed mid-run leaves one. Sweep those once. */
const STALE_RUN_DIR_MS = 60 * 60 * 1000;
function removeStaleRunDirs(): void {
  try {
    for (const name of readdirSync(BASE_DIR)) {
      if (!name.startsWith('run-')) continue;
      const dir = path.join(BASE_DIR, name);
      if (Date.now() - lstatSync(dir).mtimeMs > STALE_RUN_DIR_MS) removeRunDir(dir);
    }
  } catch {
    /* best effort */
  }
}

export function removeRunDir(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
  } catch (err) {
    console.warn(`[sandbox] could not remove ${dir}: ${(err as Error).message}`);
  }
}

/** The named regular files of `dir` (not links) of at most `cap` bytes each; absent or other names are left out. */
export async function readBackFiles(dir: string, names: string[], cap: number): Promise<Record<string, Buffer>> {
  const out: Record<string, Buffer> = {};
  for (const name of names) {
    if (!validName(name)) continue;
    const file = path.join(dir, name);
    try {
      const st = await lstat(file); // never follow a link the code planted
      if (!st.isFile() || st.size > cap) continue;
      out[name] = await readFile(file);
    } catch {
      /* absent */
    }
  }
  return out;
}
