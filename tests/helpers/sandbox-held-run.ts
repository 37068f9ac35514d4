// A sandboxed run that waits until the test releases it. Tests use it to make two runs overlap, or to look at a run
// while it is alive, without sleeping and hoping the other side got there in time.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runSandboxedPython, sandboxUid, type SandboxResult, type SandboxRunOptions } from '../../activities/sandbox/python-sandbox';

/** Where runSandboxedPython makes its run directories. */
export const RUN_DIR_BASE = path.join(os.tmpdir(), 'collab-loop-sandbox');

/** Python that returns once the file `release` appears in the run's directory (its working directory). */
export const WAIT_FOR_RELEASE = 'import os as _os, time as _time\nwhile not _os.path.exists("release"):\n    _time.sleep(0.02)\n';

/** Run directories of a slot that exist now: the runner gives each the slot's gid, read-only and writable alike. */
export function runDirsOf(slot: number): string[] {
  const gid = sandboxUid(slot);
  if (!existsSync(RUN_DIR_BASE)) return [];
  return readdirSync(RUN_DIR_BASE)
    .map((d) => path.join(RUN_DIR_BASE, d))
    .filter((d) => {
      try {
        return statSync(d).gid === gid;
      } catch {
        return false; // removed while we looked
      }
    });
}

/** Whether any process of the slot's uid is alive, read from /proc (no `ps` needed). */
function slotAlive(slot: number): boolean {
  const uid = String(sandboxUid(slot));
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] === uid) return true;
    } catch {
      // the process went away while we looked
    }
  }
  return false;
}

export interface HeldRun {
  /** The run's directory on the host (mounted at /sandbox). */
  dir: string;
  /** Lets the code past WAIT_FOR_RELEASE. */
  release(): void;
  result: Promise<SandboxResult>;
}

/**
 * Starts a writable run whose script should begin with WAIT_FOR_RELEASE, and resolves once its directory exists and
 * its processes are alive. The wall limit (default 120 s) is only a backstop for a test that never releases it.
 */
export async function startHeldRun(opts: SandboxRunOptions & { slot: number }): Promise<HeldRun> {
  const token = `held-${randomBytes(6).toString('hex')}`;
  let settled = false;
  const result = runSandboxedPython({
    ...opts,
    files: { ...opts.files, [token]: '' },
    writable: true,
    limits: { wallSeconds: 120, ...opts.limits },
  }).finally(() => {
    settled = true;
  });
  for (;;) {
    const dir = runDirsOf(opts.slot).find((d) => existsSync(path.join(d, token)));
    if (dir && slotAlive(opts.slot)) return { dir, release: () => writeFileSync(path.join(dir, 'release'), ''), result };
    if (settled) throw new Error(`the held run ended before it was seen running: ${JSON.stringify(await result)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
