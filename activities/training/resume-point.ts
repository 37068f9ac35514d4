// Where a train attempt resumes: this host's newest checkpoint (the adapter's own layout, or what a `command` trainer
// announced), or the newest step published to the run's store when that is newer — fetched to this host's disk,
// never a path on another host's.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { TrainerConfig } from '../../contracts/config';
import { writeFileAtomic } from '../artifacts/store';
import { previousHeartbeat } from '../heartbeat';
import { PROJECT_ROOT } from '../subprocess/node-script';
import { TRAINER_ADAPTERS } from './adapters';
import type { ResumePoint, TrainJob } from './adapters/types';
import { fetchNewerStep, type SavedStep } from './published-steps';
import { checkpointName, type TrainInput } from './train-input';
import type { TrainProgress } from './train-progress';

/** Where this attempt resumes: this host's newest checkpoint, or the newest step published to the run's store when
 *  that one is newer (always, on a host that has none), fetched where the trainer expects it. */
export async function resumePoint(
  input: TrainInput,
  t: TrainerConfig,
  job: TrainJob,
  root: string,
  dataset: string,
): Promise<ResumePoint | undefined> {
  const name = checkpointName(input);
  if (t.kind === 'command') {
    // A path an earlier attempt announced is a resume point only on the host that saved it; this host's own record
    // of it may be newer than the last heartbeat the server got before the worker died.
    const prev = previousHeartbeat<TrainProgress>();
    const local = [prev?.checkpoint ? { path: prev.checkpoint, step: prev.checkpointStep ?? 0 } : undefined, lastAnnounced(root, dataset)]
      .filter((c): c is ResumePoint => !!c && existsSync(c.path))
      .sort((a, b) => b.step - a.step)[0];
    return (await fetchNewerStep(input.config, name, dataset, local?.step, path.join(root, 'resumed'))) ?? local;
  }
  const adapter = TRAINER_ADAPTERS[t.kind];
  const local = adapter.findResumePoint(job.workDir);
  const fetched = await fetchNewerStep(input.config, name, dataset, local?.step, job.workDir);
  return fetched ? adapter.findResumePoint(job.workDir) : local;
}

/** The last checkpoint a `command` trainer announced on this host, written as it is announced: a worker SIGKILLed
 *  right after may not have sent the heartbeat that carried it. */
const announcedFile = (root: string) => path.join(root, 'announced-checkpoint.json');

export function recordAnnounced(root: string, at: ResumePoint, dataset: string): void {
  writeFileAtomic(announcedFile(root), JSON.stringify({ ...at, dataset }));
}

function lastAnnounced(root: string, dataset: string): ResumePoint | undefined {
  if (!existsSync(announcedFile(root))) return undefined;
  const a = JSON.parse(readFileSync(announcedFile(root), 'utf8')) as ResumePoint & { dataset: string };
  return a.dataset === dataset ? { path: a.path, step: a.step } : undefined;
}

/** A checkpoint a `command` trainer announced (relative paths are from its working directory, PROJECT_ROOT), when it
 *  is a directory: a single-file checkpoint is not published (the finished output still is). */
export function savedDir(announced: string, step: number): SavedStep | undefined {
  const dir = path.resolve(PROJECT_ROOT, announced);
  return existsSync(dir) && statSync(dir).isDirectory() ? { dir, step, rel: path.basename(dir) } : undefined;
}
