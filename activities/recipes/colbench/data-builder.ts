// ColBench's offline training rows (the MT-DPO and RFT baselines, baselines.ts) as training episodes stream past:
// rejection fine-tuning examples and trajectory pairs are both made per task (pairs, caps and shuffles within a
// task), so each task's rows are made once all of its episodes are in, and one task at a time is all the build holds.
import { multiTurnDpoPairs, rejectionFinetuningExamples, type TrajectoryPair, type TrajectoryPairOptions } from './baselines';
import type { ColbenchTrajectory } from './episode';
import { formatSft, type TrainingDataFormat } from '../../data/formats';
import { perTaskBuilder } from '../task-groups';
import { AGENT_ROLE, type DataBuilder, type RowSink } from '../types';

export interface ColbenchBuildOptions<R> {
  seed: number;
  format: TrainingDataFormat;
  /** The final score an episode ranks by (runtime.ts: 0 for one never scored). */
  scoreOf: (r: R) => number;
  pairOptions: TrajectoryPairOptions;
  /** The pairs as the trainer's preference rows. */
  pairRows: (pairs: TrajectoryPair[]) => string[];
}

export function colbenchDataBuilder<R extends ColbenchTrajectory>(o: ColbenchBuildOptions<R>, sink: RowSink): DataBuilder<R> {
  let sft = 0;
  let pairs = 0;
  return perTaskBuilder<R>(
    'colbench data',
    (task) => {
      const scores = task.map(o.scoreOf);
      const examples = rejectionFinetuningExamples(task, scores);
      const found = multiTurnDpoPairs(task, scores, o.seed, o.pairOptions);
      for (const line of formatSft(examples, o.format)) sink.row(AGENT_ROLE, 'sft', line);
      for (const line of o.pairRows(found)) sink.row(AGENT_ROLE, 'dpo', line);
      sft += examples.length;
      pairs += found.length;
    },
    () => ({ sft_examples: sft, trajectory_pairs: pairs }),
  );
}
