// One training job: what the train activity is given, where it works on this host, and the name its checkpoints are
// published under in the run's store.
import path from 'node:path';
import type { StageContext } from '../../contracts/activities';
import type { RoleDatasets } from '../../contracts/run';

export type TrainInput = StageContext & { checkpoint: string; data: RoleDatasets; role?: string };

/** Where one training job works and writes: per iteration, and per role when an iteration trains several. */
export function trainPaths(stateDir: string, runName: string, iteration: number, role?: string) {
  const sub = (...p: string[]) => path.join(...p, ...(role ? [role] : []));
  const suffix = role ? `-${role}` : '';
  return {
    root: sub(stateDir, 'train', runName, `iter-${iteration}`),
    output: sub(stateDir, 'checkpoints', runName, `iter-${iteration + 1}`),
    logFile: path.join(stateDir, 'logs', runName, `train-iter-${iteration}${suffix}.log`),
    pidFile: path.join(stateDir, 'trainers', runName, `iter-${iteration}${suffix}.json`),
  };
}

/** Where a role's next checkpoint is published: the same names as the local layout (checkpoints/<run>/iter-<k+1>). */
export const checkpointName = (input: TrainInput) =>
  [input.runName, `iter-${input.iteration + 1}`, ...(input.role ? [input.role] : [])].join('/');
