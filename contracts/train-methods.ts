// The training methods a trainer config may name, and the dataset each learns from.
import type { RoleDatasets } from './run';

/** sft and dpo learn from datasets; grpo, ppo (verl) and online_dpo (TRL) are online RL on the recipe's prompts and
 *  reward service. */
export const TRAIN_METHODS = ['sft', 'dpo', 'grpo', 'ppo', 'online_dpo'] as const;
export type TrainMethod = (typeof TRAIN_METHODS)[number];

/** The dataset each training method learns from. */
export const DATASET_OF = {
  sft: 'sft',
  dpo: 'dpo',
  grpo: 'rl',
  ppo: 'rl',
  online_dpo: 'rl',
} as const satisfies Record<TrainMethod, keyof RoleDatasets>;

/** Methods that sample from the policy while training and ask the recipe's reward service for rewards. */
export function isOnlineMethod(method: TrainMethod): boolean {
  return DATASET_OF[method] === 'rl';
}
