// Process-group control. Servers and trainers start detached (their own group) so that one signal reaches the
// whole tree (torchrun/accelerate/vLLM workers), and a pid file lets a retry on another worker clean up what a
// killed worker left behind. A pid is trusted only while the process still has the start time recorded with it
// (/proc/<pid>/stat, field 22: proc(5)), so a pid the kernel handed to an unrelated process since is never signalled.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { writeFileAtomic } from '../artifacts/store';

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** When the process started, in clock ticks since boot; undefined when it is gone or the host has no /proc. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** The group a record names is still running: its leader, started at the recorded time (where /proc tells), or —
 *  the leader gone — members left (a group id is not handed out again while any member lives). */
export function stillRunning(pid: number, start: string | undefined): boolean {
  if (!isAlive(pid)) return groupAlive(pid);
  const now = processStartTime(pid);
  return start === undefined || now === undefined || now === start;
}

export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** SIGTERM the group, wait up to `graceMs`, then SIGKILL it. Resolves once no member is left. */
export async function killProcessGroup(pid: number, graceMs = 10_000): Promise<void> {
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-pid, s);
    } catch {
      try {
        process.kill(pid, s);
      } catch {
        /* already gone */
      }
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && (groupAlive(pid) || isAlive(pid))) await pause(100);
  if (groupAlive(pid) || isAlive(pid)) signal('SIGKILL');
  for (let i = 0; i < 50 && groupAlive(pid); i++) await pause(100);
}

export interface PidRecord {
  pid: number;
  /** The leader's start time, added by writePidFile. */
  start?: string;
  [k: string]: unknown;
}

export function writePidFile(file: string, rec: PidRecord): void {
  writeFileAtomic(file, JSON.stringify({ ...rec, start: processStartTime(rec.pid) }));
}

export function readPidFile(file: string): PidRecord | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as PidRecord;
  } catch {
    return undefined;
  }
}

/** Kills whatever process group a pid file names (left by an earlier attempt) and removes the file; the record of
 *  the group it killed, if one was running. */
export async function reapPidFile(file: string): Promise<PidRecord | undefined> {
  const rec = readPidFile(file);
  rmSync(file, { force: true });
  if (!rec || !stillRunning(rec.pid, rec.start)) return undefined;
  await killProcessGroup(rec.pid);
  return rec;
}
