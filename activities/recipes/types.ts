// What the generic stages (shards, scoring, evaluation, data building, the simulator, the CLI) need from a recipe.
// Each recipe folder exports one RecipeDefinition; activities/recipes/registry.ts lists them, one line each.
import type { MetricsFold } from './metrics-fold';
import type { z } from 'zod';
import type { RecipeFidelity } from './fidelity';
import type { Chat, ChatMessage } from '../llm/types';
import type { ConversationView } from '../report/conversation-view';
import type { MetricSpec } from '../report/metric-kinds';
import type { Policy } from '../serving/openai-compatible-server';
import type { TrainingDataFormat } from '../data/formats';
import type { ImageSimilarity } from '../render/image-similarity';
import type { RunCodeTests } from '../sandbox/code-tests';
import type { SimilarityMeasure } from '../../contracts/config-fields';
import type { ProgressUnit } from '../../contracts/progress';
import type { RunUnitTests } from '../sandbox/unit-tests';
import type { OnlineRlRollout, TrainMethod } from '../training/adapters/types';
import type { PromptCatalog } from './prompt-texts';
import type { RecipeNeeds } from '../../contracts/activities';
import type { LoopConfig } from '../../contracts/config';
import type { HeldRows } from '../data/held-rows';

export type { OnlineRlRollout, RecipeNeeds };

export type Split = 'eval' | 'train';

/** The role of the one policy CoRal and ColBench train (the other roles talk to it). */
export const AGENT_ROLE = 'agent';

/** What a role is when the config does not say: trained by the loop, or served frozen at its checkpoint. */
export type RoleDefault = 'trained' | 'frozen';

export interface TaskRun {
  split: Split;
  taskIndex: number;
  sampleIndex: number;
  /** A chat per role the recipe declares (`RecipeDefinition.roles`), each played as the config's models section says. */
  chats: Record<string, Chat>;
  services: GenerationServices;
}

/** Side effects a conversation may need besides LLM calls (ColBench html renders each proposal). */
export interface GenerationServices {
  render?: (html: string) => Promise<Buffer>;
  saveImage?: (png: Buffer) => Promise<string>;
  /** Runs code against unittest source in the Python sandbox (CollabLLM's pass_rate inside the reward). */
  runUnitTests?: RunUnitTests;
}

/** What scoring on the sandbox queue provides (ColBench: run tests on code, render and compare pages). */
export interface ScoringServices {
  runCodeTests: RunCodeTests;
  render: (html: string) => Promise<Buffer>;
  /** The screenshot similarity a config chose (weight-free, or CLIP from a local checkpoint: one process per worker). */
  similarity: (measure: SimilarityMeasure) => ImageSimilarity;
  loadImage: (ref: string) => Promise<Buffer>;
  /** Keeps a render (e.g. the reference page) in the artifact store; returns its ref. */
  saveImage: (png: Buffer) => Promise<string>;
}

/** Rows for one trained role, in the trainer's format. */
export interface RoleTrainingData {
  sft: string[];
  dpo: string[];
  /** Prompts for online RL (trainer.method grpo), in the shape the converter of the recipe's `onlineRl.rollout` reads. */
  rl?: string[];
}

/** Where a streaming data build writes its rows (activities/data/dataset-files.ts writes each dataset to a file). */
export interface RowSink {
  row(role: string, dataset: keyof RoleTrainingData, line: string): void;
  /** A row of one of the recipe's further datasets (TrainingData.extra). */
  extra(name: string, line: string): void;
  /** Where the build keeps rows it may still drop, out of its heap (a file beside the datasets). */
  held(): HeldRows;
}

/** A data build as the training split's records stream past, in plan order: task-major, so a task's records arrive
 *  together. */
export interface DataBuilder<Build> {
  add(record: Build): void;
  /** TrainingData.counts, once every record is in. */
  finish(): Record<string, number>;
}

export interface TrainingData {
  /** Role → the rows that train it (only roles the config trains are trained; the others' rows are dropped). */
  byRole: Record<string, RoleTrainingData>;
  counts: Record<string, number>;
  /** Further datasets the recipe publishes (name → JSONL rows), kept as artifacts beside the trainer's rows. */
  extra?: Record<string, string[]>;
}

/**
 * A recipe at run time, typed by the records it writes: `Eval`, an evaluation-split record as its metrics read it;
 * `Build`, a training-split record as its data builders read it; `Raw`, what `runTask` returns (the same records,
 * unless `scoreRecords` turns them into scored ones on the sandbox queue). The generic stages hold the erased
 * `RecipeRuntime` (every record `unknown`): they only move records between the artifact store and these methods.
 */
export interface RecipeRuntime<Eval = unknown, Build = Eval, Raw = Eval | Build> {
  /** What one run of `runTask` is called in progress displays (default: conversations). */
  progressUnit?: ProgressUnit;
  taskCount(split: Split): number;
  samplesPerTask(split: Split): number;
  runTask(run: TaskRun): Promise<Raw>;
  /** Tokens a record consumed (prompt + completion), for accounting. */
  recordTokens(record: Raw): number;
  metrics(records: Eval[]): Record<string, number>;
  /** The same metrics folded as records stream past (metrics-fold.ts), so evaluation holds one shard at a time. */
  metricsFold(): MetricsFold<Eval>;
  /** What each of `metrics`' keys is (a rate, a count, a standard error…), for the report's plots (the recipe's
   *  metrics.ts declares them beside the code that computes them). */
  metricKinds: readonly MetricSpec[];
  buildData(records: Build[]): TrainingData;
  /** The same rows as `buildData`, written to `sink` as records stream past, so build-data holds neither the records
   *  nor the rows. */
  dataBuilder(sink: RowSink): DataBuilder<Build>;
  /** One record as the report's conversation browser shows it (the recipe's `report-view.ts`). */
  describeRecord(split: Split, record: Eval | Build): ConversationView;
  /** The first `n` evaluation prompts as a served model would get them (the deploy stage's probe). */
  probePrompts(n: number): ChatMessage[][];
  /** Recipes whose records need untrusted code run or pages rendered before metrics (sandbox queue). */
  scoreRecords?(split: Split, records: Raw[], services: ScoringServices): Promise<Array<Eval | Build>>;
  /** Recipes whose training data needs model calls (SWEET-RL: candidates from the agent, ranks from a critic).
   *  `logProbs`: per role (the agent and each of `needs.scorers`), a Chat that answers the mean log-prob of a call's
   *  last (assistant) message (activities/llm/logprob-api.ts). */
  buildDataWithModels?(records: Build[], chats: Record<string, Chat>, logProbs?: Record<string, Chat>): Promise<TrainingData>;
  /** The rows that train `needs.scorers` this iteration, before the data that needs them is built, made as the
   *  training split's records stream past (as dataBuilder). */
  scorerDataBuilder?(sink: RowSink): DataBuilder<Build>;
  /** The recipe's own figures in the report, from one iteration's evaluation records (TOA: reward against FLOPs). */
  reportFigures?(records: Eval[]): RecipeFigure[];
}

/** A scatter or line figure: series of (x, y) points. */
export interface RecipeFigure {
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  series: Array<{ name: string; points: Array<[number, number]> }>;
}

/** One recipe: `C` is its config section, `Eval`, `Build` and `Raw` its records (see RecipeRuntime). */
export interface RecipeDefinition<C extends { name: string } = { name: string }, Eval = unknown, Build = Eval, Raw = Eval | Build> {
  name: C['name'];
  /** The config's `recipe:` section for this recipe; its `name` is the literal above. */
  schema: z.ZodType<C> & z.ZodObject;
  /** The prompt texts a `recipe.prompts` file may replace, by key (the recipe's prompts.ts). */
  prompts: PromptCatalog;
  /** The model roles this configuration plays, in order, each with the kind it gets when the config's `models:`
   *  section leaves it out. The first trained role is the run's primary model (its chain is the loop's checkpoint). */
  roles(cfg: C): Record<string, RoleDefault>;
  needs(cfg: C): RecipeNeeds;
  /** The metric the recipe's paper leads with (one of `runtime().metrics`' keys). */
  headlineMetric: string;
  /** The metric keys `runtime().metrics` computes (the same declarations as `runtime().metricKinds`), known without a
   *  runtime: the config loader checks a `paper:` figure's metric against them. */
  metricKinds: readonly MetricSpec[];
  /** Loaded when a stage first needs it (a dynamic import of the recipe's runtime.ts): the definition stays light for
   *  what reads only the config side of a recipe (the schema, the CLI, the dry-run simulator). */
  runtime(cfg: C, o: { seed: number; format: TrainingDataFormat }): Promise<RecipeRuntime<Eval, Build, Raw>>;
  /** Local paths in the recipe's section besides the task files, made absolute by the config loader (`abs`: relative
   *  to the config file) before `check`; changes the section it is given (the loader's copy). */
  resolvePaths?(cfg: C, abs: (p: string) => string): void;
  /** The recipe's section of a config from before `configVersion` (configs/upgrade.ts, version 0 → 1), where a field
   *  added later has a default other than what its absence meant then: the section as it then behaved. */
  fromUnversioned?(section: Record<string, unknown>): Record<string, unknown>;
  /** A check across sections, after the schema: the field to fix and why (e.g. DPO needs tree width ≥ 2). */
  check?(cfg: C, o: { trainerMethod?: TrainMethod }): { field: string; message: string } | undefined;
  /** The dry-run SIMULATOR: how its task files are named (`--tasks <file>:<kind>`), and the seeded policy over them. */
  simulator: {
    taskKind(cfg: C): string;
    policy(tasks: Array<{ file: string; kind: string }>, p: { skill: number; agreeability?: number }): Policy;
  };
  /** Online RL (trainer.method grpo): the RL trainer samples responses to the recipe's `rl` prompts, plays their
   *  futures with the recipe's user simulator and takes their rewards from it, over HTTP (CollabLLM with verl). */
  onlineRl?: OnlineRl<C>;
  /** Where the recipe departs from its seed and what it is meant to reproduce (its fidelity.ts; docs/fidelity.md). */
  fidelity: RecipeFidelity;
  /** `collab-loop score --recipe <name>`: one JSON line out per record in; bad input throws a ScoreInputError. */
  score?(o: { input: string; dataset?: string; tasks?: string; compat: 'fixed' | 'seed' }): Promise<string[]>;
}

/** A recipe as the generic code holds it, for any section of the loop's config: erased by the registry (registry.ts),
 *  resolved from a config by the stages (activities/stages/) and handed from there to the domain code. */
export type LoopRecipe = RecipeDefinition<LoopConfig['recipe']>;

/** A user mistake in `collab-loop score` input (file, flag): the CLI prints the message alone. */
export class ScoreInputError extends Error {
  override name = 'ScoreInputError';
}

/** What a recipe serves an online RL trainer (activities/training/online-reward.ts runs it beside the trainer). */
export interface OnlineRl<C> {
  /** How the trainer turns the recipe's `rl` prompts into rollouts: the converter of its rows, and the names of the
   *  agent loop and the interaction the rows carry (activities/training/adapters/verl-grpo.ts writes them into verl's
   *  config). */
  rollout(cfg: C): OnlineRlRollout;
  /** The service's handlers, given a chat per role that is not trained (all external: nothing is served while a
   *  trainer holds the GPUs). A request the handlers cannot use throws BadRequest (activities/serving/json-service.ts). */
  rewardService(cfg: C, o: { chats: Record<string, Chat>; services: GenerationServices; seed: number }): Promise<OnlineRewardHandlers>;
}

/** The protocol of activities/training/adapters/verl_collab_loop.py (its docstring shows the bodies). */
export interface OnlineRewardHandlers {
  /** The simulated user's next message in a future (`terminate`: the future ends after it). */
  userTurn(body: unknown): Promise<{ text: string; terminate: boolean }>;
  /** One response's reward from the futures played after it; null when none could be scored (never a made-up 0). */
  score(body: unknown): Promise<{ score: number | null; used: number; missing: number; per_metric: Record<string, number> }>;
}
