// What one sandboxed run may use: applied by prlimit(1) and bwrap(1) in the command (sandbox-command.ts), and by
// our own timer and output caps while it runs (capped-spawn.ts).
import { SandboxConfigError } from './sandbox-config-error';

export interface SandboxLimits {
  /** Wall-clock limit for the whole run (SIGKILL). */
  wallSeconds: number;
  /** RLIMIT_CPU (SIGXCPU, then SIGKILL). */
  cpuSeconds: number;
  /** RLIMIT_AS: a bigger allocation raises MemoryError. */
  memoryBytes: number;
  /** RLIMIT_NPROC for the slot's uid: caps fork bombs. */
  processes: number;
  /** RLIMIT_FSIZE: largest file the code may write. */
  fileSizeBytes: number;
  /** RLIMIT_NOFILE. */
  openFiles: number;
  /** Per stream (stdout, stderr): past this the run is killed and `truncated` is set. */
  outputBytes: number;
  /** Size of the private /tmp (and /dev/shm) tmpfs inside bwrap: RAM that the code may fill. */
  tmpBytes: number;
}

export const DEFAULT_SANDBOX_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  wallSeconds: 10,
  cpuSeconds: 5,
  memoryBytes: 512 * 1024 * 1024,
  processes: 64,
  fileSizeBytes: 10 * 1024 * 1024,
  openFiles: 64,
  outputBytes: 1024 * 1024,
  tmpBytes: 16 * 1024 * 1024,
});

/** The defaults overridden by `partial`; every limit must be a positive number. */
export function resolveLimits(partial: Partial<SandboxLimits> | undefined): SandboxLimits {
  const l = { ...DEFAULT_SANDBOX_LIMITS, ...partial };
  for (const [k, v] of Object.entries(l)) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
      throw new SandboxConfigError(`sandbox limit ${k} must be a positive number, got ${v}`);
  }
  return l;
}
