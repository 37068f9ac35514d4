// The host's record of every process group a worker started (model servers, trainers): one small JSON file per group
// in <state dir>/processes/<pid>.json, naming the group, its kind, the port it listens on and the worker that owns
// it. A worker that exits gracefully stops its own groups (stopOwnGroups); one killed with SIGKILL cannot, so the
// next worker start and every stage that starts a group reap the groups whose owner is gone (reapOrphans).
// Pids are checked against their recorded start times (process-group.ts), so a reused pid is never signalled.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeFileAtomic } from '../artifacts/store';
import { isAlive, killProcessGroup, processStartTime, stillRunning } from './process-group';

export interface GroupRecord {
  /** The group leader's pid, which is also the process group id (groups start detached). */
  pid: number;
  kind: 'server' | 'trainer';
  port?: number;
  run?: string;
  argv: string[];
  /** The leader's start time (clock ticks since boot), when /proc has it. */
  start?: string;
  owner: number;
  ownerStart?: string;
  /** The host the owner runs on: pids mean nothing elsewhere, should hosts share a state dir on a network mount. */
  host: string;
  /** The GPU indices the group was given (its CUDA_VISIBLE_DEVICES, gpu-pool.ts): held while it runs. */
  gpus?: number[];
}

export const registryDir = (stateDir: string) => path.join(stateDir, 'processes');
const recordFile = (stateDir: string, pid: number) => path.join(registryDir(stateDir), `${pid}.json`);

/** The state dirs this process has recorded groups in (a worker serves runs with different state dirs). */
const usedDirs = new Set<string>();

/** The same process as when recorded: alive, and (where /proc tells) started at the recorded time. */
export function sameProcess(pid: number, start: string | undefined): boolean {
  return isAlive(pid) && stillRunning(pid, start);
}

export function recordGroup(stateDir: string, rec: Omit<GroupRecord, 'start' | 'owner' | 'ownerStart' | 'host'>): void {
  mkdirSync(registryDir(stateDir), { recursive: true });
  usedDirs.add(stateDir);
  const full: GroupRecord = { ...rec, start: processStartTime(rec.pid), ...ownerStamp() };
  writeFileAtomic(recordFile(stateDir, rec.pid), JSON.stringify(full));
}

export function forgetGroup(stateDir: string, pid: number): void {
  rmSync(recordFile(stateDir, pid), { force: true });
}

/** Who owns a record: this process, identified so that a reused pid is not taken for it, on this host. */
export const ownerStamp = () => ({ owner: process.pid, ownerStart: processStartTime(process.pid), host: os.hostname() });

/** The JSON records in `dir` written on this host (with their files); an unreadable one (torn by a kill) is removed. */
export function hostRecords<T extends { host: string }>(dir: string): Array<{ file: string; rec: T }> {
  if (!existsSync(dir)) return [];
  const out: Array<{ file: string; rec: T }> = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
    const file = path.join(dir, f);
    try {
      const rec = JSON.parse(readFileSync(file, 'utf8')) as T;
      if (rec.host === os.hostname()) out.push({ file, rec });
    } catch {
      rmSync(file, { force: true }); // unreadable: nothing in it to trust
    }
  }
  return out;
}

/** This host's records in the registry. */
const records = (stateDir: string): GroupRecord[] => hostRecords<GroupRecord>(registryDir(stateDir)).map((r) => r.rec);

/** The GPU indices held by this host's live groups in the registries this process used (and `stateDir`'s). */
export function gpusInUse(stateDir: string): Set<number> {
  const held = new Set<number>();
  for (const dir of new Set([...usedDirs, stateDir]))
    for (const r of records(dir)) if (r.gpus?.length && sameProcess(r.pid, r.start)) for (const g of r.gpus) held.add(g);
  return held;
}

/** Kills the group if it is still the one recorded (process-group.ts stillRunning); removes the record either way. */
async function stopRecorded(stateDir: string, rec: GroupRecord): Promise<boolean> {
  const ours = stillRunning(rec.pid, rec.start);
  if (ours) await killProcessGroup(rec.pid);
  forgetGroup(stateDir, rec.pid);
  return ours;
}

/** Kills the groups whose owning worker is gone (SIGKILLed, crashed, or its pid reused). */
export async function reapOrphans(stateDir: string): Promise<GroupRecord[]> {
  const orphans = records(stateDir).filter((r) => !sameProcess(r.owner, r.ownerStart));
  const reaped: GroupRecord[] = [];
  for (const r of orphans) if (await stopRecorded(stateDir, r)) reaped.push(r);
  return reaped;
}

/** Kills every group this process started and has not stopped yet (a worker shutting down). Groups of a `keep`
 *  kind are left running and dropped from the registry instead: no later worker start reaps them, and the stage that
 *  owns them (undeploy, a run's stop) stops them through their pid files. */
export async function stopOwnGroups(opts: { keep?: GroupRecord['kind'] } = {}): Promise<GroupRecord[]> {
  const stopped: GroupRecord[] = [];
  for (const dir of usedDirs)
    for (const r of records(dir).filter((x) => x.owner === process.pid)) {
      if (r.kind === opts.keep) forgetGroup(dir, r.pid);
      else if (await stopRecorded(dir, r)) stopped.push(r);
    }
  return stopped;
}
