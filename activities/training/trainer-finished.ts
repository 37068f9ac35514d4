// trainer-finished.json in a train job's directory: the trainer's steps all succeeded and wrote the job's output,
// on this dataset with this trainer section. Written before the lineage and the publishing that end the stage, so a
// stage that fails after its trainer (the store down beyond its tolerance while the manifest is written) is retried
// — even by `collab-loop retry` after "needs attention" — without training again.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { TrainerConfig } from '../../contracts/config';
import { writeFileAtomic } from '../artifacts/store';
import type { ResumePoint } from './adapters/types';

/** P: the progress the trainer reported (final step, loss), which the lineage records. */
export interface TrainerFinished<P> {
  dataset: string;
  trainer: string;
  progress: P;
  resume?: ResumePoint;
}

const fileIn = (root: string) => path.join(root, 'trainer-finished.json');
const trainerKey = (t: TrainerConfig) => JSON.stringify(t);

/** The record of a trainer that finished `output` (still there) on this dataset and trainer section, if any. */
export function trainerFinishedBefore<P>(root: string, output: string, dataset: string, t: TrainerConfig): TrainerFinished<P> | undefined {
  if (!existsSync(fileIn(root)) || !existsSync(output)) return undefined;
  const f = JSON.parse(readFileSync(fileIn(root), 'utf8')) as TrainerFinished<P>;
  return f.dataset === dataset && f.trainer === trainerKey(t) ? f : undefined;
}

export function recordTrainerFinished<P>(root: string, t: TrainerConfig, f: Omit<TrainerFinished<P>, 'trainer'>): void {
  writeFileAtomic(fileIn(root), JSON.stringify({ ...f, trainer: trainerKey(t) }, null, 2));
}

/** Before a trainer runs again: its output is about to be replaced. */
export function forgetTrainerFinished(root: string): void {
  rmSync(fileIn(root), { force: true });
}
