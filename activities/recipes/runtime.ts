// What the generic stages (shards, evaluation, data building) need from a recipe. Each recipe folder provides
// one; the registry picks it by `recipe.name` in the config.
import type { LoopConfig } from '../../configs/schema';
import type { Chat, ChatMessage } from '../llm/types';
import { trainingDataFormat } from '../training/data-format';
import { coralRuntime } from './coral/runtime';

export type Split = 'eval' | 'train';

export interface TaskRun {
  split: Split;
  taskIndex: number;
  sampleIndex: number;
  agent: Chat;
  extractor: Chat;
}

export interface TrainingData {
  sft: string[];
  dpo: string[];
  counts: Record<string, number>;
}

export interface RecipeRuntime {
  taskCount(split: Split): number;
  samplesPerTask(split: Split): number;
  runTask(run: TaskRun): Promise<unknown>;
  /** Tokens a record consumed (prompt + completion), for accounting. */
  recordTokens(record: unknown): number;
  metrics(records: unknown[]): Record<string, number>;
  buildData(records: unknown[]): TrainingData;
  /** The first `n` evaluation prompts as a served model would get them (the deploy stage's probe). */
  probePrompts(n: number): ChatMessage[][];
}

export function recipeRuntime(config: LoopConfig): RecipeRuntime {
  switch (config.recipe.name) {
    case 'coral':
      return coralRuntime(config.recipe, config.seed, trainingDataFormat(config));
  }
}
