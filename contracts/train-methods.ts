// The training methods a trainer config may name, and the dataset each learns from.
import type { RoleDatasets } from './run';

/** sft and dpo learn from datasets; grpo is online RL on the recipe's prompts and reward service (verl). */
export const TRAIN_METHODS = ['sft', 'dpo', 'grpo'] as const;
export type TrainMethod = (typeof TRAIN_METHODS)[number];

/** The dataset each training method learns from. */
export const DATASET_OF = { sft: 'sft', dpo: 'dpo', grpo: 'rl' } as const satisfies Record<TrainMethod, keyof RoleDatasets>;
