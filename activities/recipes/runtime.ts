// What the generic stages (shards, evaluation, data building) need from a recipe. Each recipe folder provides
// one; the registry picks it by `recipe.name` in the config.
import type { LoopConfig } from '../../configs/schema';
import type { Chat, ChatMessage } from '../llm/types';
import type { ConversationView } from '../report/conversation-view';
import { trainingDataFormat } from '../training/data-format';
import { coralRuntime } from './coral/runtime';
import { colbenchRuntime } from './colbench/runtime';
import type { RunCodeTests } from './colbench/services';

export type Split = 'eval' | 'train';

export interface TaskRun {
  split: Split;
  taskIndex: number;
  sampleIndex: number;
  agent: Chat;
  /** CoRal's belief extractor. */
  extractor: Chat;
  /** ColBench's simulated human. */
  human: Chat;
  services: GenerationServices;
}

/** Side effects a conversation may need besides LLM calls (ColBench html renders each proposal). */
export interface GenerationServices {
  render?: (html: string) => Promise<Buffer>;
  saveImage?: (png: Buffer) => Promise<string>;
}

/** What scoring on the sandbox queue provides (ColBench: run tests on code, render and compare pages). */
export interface ScoringServices {
  runCodeTests: RunCodeTests;
  render: (html: string) => Promise<Buffer>;
  similarity: (a: Buffer, b: Buffer) => number | Promise<number>;
  loadImage: (ref: string) => Promise<Buffer>;
  /** Keeps a render (e.g. the reference page) in the artifact store; returns its ref. */
  saveImage: (png: Buffer) => Promise<string>;
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
  /** One record as the report's conversation browser shows it (the recipe's `report-view.ts`). */
  describeRecord(split: Split, record: unknown): ConversationView;
  /** The first `n` evaluation prompts as a served model would get them (the deploy stage's probe). */
  probePrompts(n: number): ChatMessage[][];
  /** Recipes whose records need untrusted code run or pages rendered before metrics (sandbox queue). */
  scoreRecords?(split: Split, records: unknown[], services: ScoringServices): Promise<unknown[]>;
  /** Recipes whose training data needs model calls (SWEET-RL: candidates from the agent, ranks from a critic). */
  buildDataWithModels?(records: unknown[], models: { agent: Chat; critic: Chat }): Promise<TrainingData>;
}

export function recipeRuntime(config: LoopConfig): RecipeRuntime {
  switch (config.recipe.name) {
    case 'coral':
      return coralRuntime(config.recipe, config.seed, trainingDataFormat(config));
    case 'colbench-code':
    case 'colbench-html':
      return colbenchRuntime(config.recipe, config.seed, trainingDataFormat(config));
  }
}
