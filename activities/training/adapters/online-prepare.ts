// The prepare step of every online RL plan (verl grpo/ppo, TRL online_dpo): the recipe's converter
// (OnlineRlRollout.converter) turns the iteration's `rl` rows into rl_train.parquet and rl_validation.parquet in the
// data dir, each row naming the agent loop and the interaction (verl reads both; TRL reads the prompt and the
// interaction's kwargs).
import type { TrainJob, TrainStep } from './types';

export const RL_TRAIN_PARQUET = 'rl_train.parquet';
export const RL_VALIDATION_PARQUET = 'rl_validation.parquet';

export function onlinePrepareStep(job: TrainJob, env: Record<string, string>): TrainStep {
  if (!job.onlineRl) throw new Error(`${job.method}: no reward service (the train stage starts it before planning)`);
  const { converter, agentLoop, interactionName } = job.onlineRl;
  return {
    name: 'prepare',
    argv: [
      job.python,
      converter.script,
      ...converter.args,
      ...['--agent-name', agentLoop.name, '--interaction-name', interactionName, '--seed', String(job.seed), '--out-dir', job.dataDir],
      job.dataFile,
    ],
    env: { ...env },
    badInputExitCode: 2,
  };
}
