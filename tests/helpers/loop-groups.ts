// The process groups a worker recorded for a run (activities/subprocess/process-registry.ts), and what a test of
// "nothing is left running" checks: no process naming the run's state dir and no port its groups listened on.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { type GroupRecord, registryDir } from '../../activities/subprocess/process-registry';
import { processesWith, stillListening } from './host-processes';

export function recordedGroups(stateDir: string, kind?: GroupRecord['kind']): GroupRecord[] {
  const dir = registryDir(stateDir);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as GroupRecord)
    .filter((r) => !kind || r.kind === kind);
}

/** Nothing of the run is running (but the given worker processes) and none of `ports` is listened on. */
export function expectNothingLeft(stateDir: string, ports: number[], workers: number[] = []): void {
  expect(processesWith(stateDir, workers)).toEqual([]);
  expect(stillListening(ports)).toEqual([]);
}
