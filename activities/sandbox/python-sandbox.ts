// Runs untrusted Python (LLM-written code) in a throw-away sandbox: bubblewrap when installed, else unshare. One run:
//   sandbox-installation.ts   which isolation this machine has, and are its tools installed (then a trivial run proves it)
//   sandbox-slots.ts          the slot's uid, one run at a time per slot
//   run-directories.ts        the run's private directory with the caller's files, read back and removed after
//   sandbox-command.ts        the command line (prlimit, bwrap, python3) and how to read its exit status
//   capped-spawn.ts           spawning it with the wall-clock limit and output caps, killing what overruns
// Bad code never makes this throw; only a broken installation does, with a message saying what to fix.
import { spawnSync } from 'node:child_process';
import { count } from '../metrics';
import { spawnCapped } from './capped-spawn';
import { checkRunFiles, makeRunDir, readBackFiles, removeRunDir } from './run-directories';
import { interpreterExit, sandboxCommand, type SandboxIsolation } from './sandbox-command';
import { SandboxConfigError } from './sandbox-config-error';
import { checkTools, defaultIsolation } from './sandbox-installation';
import { resolveLimits, type SandboxLimits } from './sandbox-limits';
import { onSlot, sandboxUid } from './sandbox-slots';

export { SANDBOX_PYTHON, type SandboxCommand, sandboxCommand, type SandboxIsolation } from './sandbox-command';
export { SandboxConfigError } from './sandbox-config-error';
export { defaultIsolation } from './sandbox-installation';
export { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from './sandbox-limits';
export { MAX_SANDBOX_SLOT, SANDBOX_UID_BASE, sandboxUid } from './sandbox-slots';

export interface SandboxRunOptions {
  /** Files placed in the run's private directory (seen at /sandbox): relative name → content. */
  files: Record<string, string | Uint8Array>;
  /** Which of `files` to run. */
  script: string;
  args?: string[];
  /** Standard input; /dev/null when absent. */
  stdin?: string | Uint8Array;
  /** Concurrency slot: the run's uid is 60000 + slot. Runs on one slot are serialised within this process. */
  slot?: number;
  /** Mount /sandbox read-write (default read-only). */
  writable?: boolean;
  /** Files to read back from the directory after the run (regular files only, each capped at outputBytes). */
  readBack?: string[];
  limits?: Partial<SandboxLimits>;
  /** Force a mechanism (tests of the fallback); default: bwrap when installed, else unshare. */
  isolation?: SandboxIsolation;
}

export interface SandboxResult {
  /** The interpreter's exit code; null when a signal ended the run. */
  exitCode: number | null;
  /** The signal that ended the run (SIGKILL on the wall limit, SIGXCPU on the CPU limit, SIGSEGV, SIGABRT...). */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Raw stdout, for binary protocols. */
  stdoutBytes: Buffer;
  /** Killed by the wall-clock limit. */
  timedOut: boolean;
  /** stdout or stderr went past `outputBytes`; the run was killed there. */
  truncated: boolean;
  durationMs: number;
  isolation: SandboxIsolation;
  /** The `readBack` files that existed after the run. */
  files: Record<string, Buffer>;
}

const checked = new Map<SandboxIsolation, Promise<void>>();

/** A trivial run proves the installation works, so that later failures can be blamed on the code that ran. */
async function preflight(isolation: SandboxIsolation, slot: number): Promise<void> {
  let p = checked.get(isolation);
  if (!p) {
    p = (async () => {
      checkTools(isolation);
      const r = await runUnchecked({ files: { 'check.py': 'print("ok")\n' }, script: 'check.py', slot, isolation });
      if (r.stdout.trim() !== 'ok') {
        const hint =
          isolation === 'bwrap'
            ? ' (bwrap needs unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1 / user.max_user_namespaces > 0)'
            : '';
        throw new SandboxConfigError(
          `the Python sandbox (${isolation}) does not work on this machine${hint}: exit ${r.exitCode ?? r.signal}, stderr: ${r.stderr.trim().slice(0, 500)}`,
        );
      }
    })();
    checked.set(isolation, p);
    p.catch(() => checked.delete(isolation));
  }
  return p;
}

async function runUnchecked(opts: SandboxRunOptions & { isolation: SandboxIsolation }): Promise<SandboxResult> {
  const limits = resolveLimits(opts.limits);
  const slot = opts.slot ?? 0;
  const uid = sandboxUid(slot);
  const isolation = opts.isolation;
  checkRunFiles(opts.files, opts.script);
  const writable = opts.writable ?? false;
  return onSlot(slot, async () => {
    const dir = makeRunDir(opts.files, uid, writable);
    try {
      const cmd = sandboxCommand({ dir, script: opts.script, args: opts.args, uid, writable, limits, isolation });
      const r = await spawnCapped(cmd, dir, opts.stdin, limits);
      const { exitCode, signal, stderr } = interpreterExit(isolation, { ...r, stderr: r.stderr.toString('utf8') });
      const files = opts.readBack?.length ? await readBackFiles(dir, opts.readBack, limits.outputBytes) : {};
      return {
        exitCode,
        signal,
        stdout: r.stdout.toString('utf8'),
        stderr,
        stdoutBytes: r.stdout,
        timedOut: r.timedOut,
        truncated: r.truncated,
        durationMs: Math.round(r.durationMs * 10) / 10,
        isolation,
        files,
      };
    } finally {
      removeRunDir(dir);
    }
  });
}

/**
 * Runs `opts.script` with the system Python inside the sandbox and returns what happened. Never throws because
 * of what the code does (loops, crashes, floods, forks); throws SandboxConfigError when the machine cannot run
 * the sandbox at all (not root, python3/bubblewrap/util-linux missing, user namespaces disabled).
 */
export async function runSandboxedPython(opts: SandboxRunOptions): Promise<SandboxResult> {
  const isolation = opts.isolation ?? defaultIsolation();
  await preflight(isolation, opts.slot ?? 0);
  const r = await runUnchecked({ ...opts, isolation });
  count('sandboxRuns', 1, { outcome: r.timedOut ? 'timeout' : r.exitCode === 0 ? 'ok' : 'error' });
  return r;
}

/** Pids of live processes (zombies included) owned by a slot's uid: tests use it to prove nothing escaped. */
export function processesOfSlot(slot: number): number[] {
  const r = spawnSync('ps', ['-u', String(sandboxUid(slot)), '-o', 'pid='], { encoding: 'utf8' });
  return r.stdout
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
}
