// Shapes that cross the workflow/activity boundary. Only small values and artifact refs — never data.
import type { ArtifactRef } from './artifact-ref';
import type { LoopConfig } from './config';
import type { EndpointRef } from './endpoint';
import type { FinishedWork, ProgressUnit, StageProgress } from './progress';
import type { TrackerOutcome } from './tracking';

export type { ArtifactRef, LoopConfig, EndpointRef };

import type { Stage } from './stages';
export { STAGES, type Stage } from './stages';

export const TASK_QUEUES = {
  workflows: 'collab-loop-workflows',
  llm: 'collab-loop-llm',
  cpu: 'collab-loop-cpu',
  gpu: 'collab-loop-gpu',
  /** Untrusted code in the Python sandbox and page rendering in Chromium (ColBench scoring). */
  sandbox: 'collab-loop-sandbox',
} as const;
export type QueueClass = keyof typeof TASK_QUEUES;

export interface LoopInput {
  runName: string;
  config: LoopConfig;
  /** Only evaluate (CoRal's `validate`): no sampling, no data, no training. */
  evalOnly?: boolean;
  /** Which `start --restart` of this name the run is (absent: the name's first run). Its files go under
   *  runDataName (contracts/run-data-name.ts), so a restart never writes over an earlier run's checkpoints. */
  restart?: number;
}

export interface IterationSummary {
  iteration: number;
  checkpoint: string;
  metrics: Record<string, number>;
  /** LLM spend per stage and role (absent in runs recorded before budgets). */
  spend?: SpendReport;
  /** The budget in effect when the iteration ended (a retry may have raised it); the loop keeps it. */
  budget?: LoopConfig['budget'];
  tokens: number;
  datasets?: { sft?: ArtifactRef; dpo?: ArtifactRef };
  nextCheckpoint?: string;
  /** The served checkpoint's probe (see ProbeResult). */
  probe?: ProbeResult;
  /** Trainer's final loss and steps, when this iteration trained; `lossCurve`: JSONL rows {step, loss}. */
  train?: TrainOutcome;
  /** Time and LLM accounting per stage (absent in runs recorded before it existed). */
  stages?: Partial<Record<Stage, StageStats>>;
  manifests: Record<string, ArtifactRef>;
  /** Every model role this iteration: what played it and, for trained roles, what trained it into what (absent in
   *  runs recorded before model roles; the top-level checkpoint fields are the primary role's). */
  models?: Record<string, RoleLineage>;
  /** The config a `retry --set` gave this iteration, which the later iterations run with (absent: unchanged). The
   *  loop keeps it in its state, not in the summaries it carries. */
  config?: LoopConfig;
  /** Every `retry --set` change the run's config has had up to the end of this iteration. */
  configChanges?: string[];
}

export type RoleKind = 'trained' | 'frozen' | 'external';

/** Trainer outcome of one role (or of the one model of runs recorded before model roles). */
export interface TrainOutcome {
  finalLoss?: number;
  steps?: number;
  resumedFromStep?: number;
  lossCurve?: ArtifactRef;
}

/** One role in one iteration: a link of its checkpoint chain. */
export interface RoleLineage {
  kind: RoleKind;
  /** The checkpoint served for it (trained, frozen), or the external endpoint's model. */
  checkpoint?: string;
  model?: string;
  /** Trained roles: the rows it trained on and the checkpoint they made. */
  dataset?: ArtifactRef;
  nextCheckpoint?: string;
  train?: TrainOutcome;
  /** Why a trained role kept its checkpoint this iteration (e.g. no examples). */
  skipped?: string;
}

/** LLM calls a stage made: `calls` includes the `cachedCalls` answered from the durable request cache. */
export interface LlmUsage {
  calls: number;
  cachedCalls: number;
  tokens: number;
}

/** One stage of one iteration: when it started and how long it worked, retries included and time spent waiting
 *  for a user's `retry` excluded; plus the LLM calls it made, where it made any. */
export interface StageStats extends Partial<LlmUsage> {
  startedAt: string;
  ms: number;
}

export interface LoopState {
  iteration: number;
  /** The primary role's checkpoint (the one model of single-model recipes). */
  checkpoint: string;
  /** Each trained role's current checkpoint, once an iteration has served it (absent before model roles). */
  checkpoints?: Record<string, string>;
  done: IterationSummary[];
  /** The budget a `retry --set budget…` raised, for the iterations after it (absent: the config's). Runs that carry
   *  `config` keep the budget in it. */
  budget?: LoopConfig['budget'];
  /** The config after the `retry --set` changes, which every later iteration runs with (absent: the run's own). */
  config?: LoopConfig;
  configChanges?: string[];
  /** When the run's first execution started (ISO), carried across continue-as-new: the server's start time and
   *  static summary are each execution's own (absent in runs from before it was kept). */
  startedAt?: string;
}

export interface IterationInput {
  runName: string;
  config: LoopConfig;
  iteration: number;
  checkpoint: string;
  /** Each trained role's checkpoint (LoopState.checkpoints). */
  checkpoints?: Record<string, string>;
  evalOnly: boolean;
  /** What the run's earlier iterations spent, for `budget` (absent before budgets). */
  spentBefore?: Spend;
  /** The `retry --set` changes earlier iterations made to the run's config (already in `config`). */
  configChanges?: string[];
  /** LoopInput.restart, for where the stages put the run's files. */
  restart?: number;
}

export interface Attention {
  stage: Stage;
  /** The model role whose work failed (train stage with several trained roles). */
  roles?: string[];
  error: string;
  failureType?: string;
  since: string;
}

export interface IterationStatus {
  iteration: number;
  stage: Stage | 'done';
  paused: boolean;
  attention?: Attention;
  shards: { done: number; total: number };
  conversations: { done: number; total: number };
  tokens: number;
  metrics?: Record<string, number>;
  train?: { step?: number; loss?: number };
  /** Stages finished or under way, in order. */
  stages: Partial<Record<Stage, StageStats>>;
  /** LLM spend of this iteration so far (absent before budgets). */
  spend?: SpendReport;
  /** Every `retry --set` change the run's config has had so far, oldest first. */
  configChanges?: string[];
  /** The running stage's work (contracts/progress.ts): in the status query, what its finished activities did
   *  (workflows/live-progress.ts); from getRunStatus (`status --json`), that plus the running pieces' measurements,
   *  at most a few seconds old (cli/running-work.ts). Absent between stages, in stages that count none (deploy,
   *  undeploy) and in iterations started before live progress. */
  progress?: StageProgress;
}

/** What an iteration tells its loop at each stage change (and, since live progress, as each shard finishes), so
 *  the loop's UI page shows where the run is. */
export interface IterationProgress {
  iteration: number;
  stage: Stage | 'done';
  attention?: Attention;
  conversations: number;
  tokens: number;
  metrics?: Record<string, number>;
  /** The stage's finished work (the running pieces' progress is in their activities' heartbeat details). */
  work?: { unit: ProgressUnit; total?: number; finished: FinishedWork };
  /** The piece whose finishing this message tells (a shard key): iterations since live-progress-v1 send it (their
   *  signal is a command replays must repeat); the loop no longer reads it, as it holds no running pieces. */
  finishedKey?: string;
}

export interface LoopStatus {
  runName: string;
  recipe: string;
  iteration: number;
  iterations: number;
  paused: boolean;
  done: IterationSummary[];
  finished: boolean;
  /** Finished because the user stopped it (absent in runs recorded before it existed). */
  stopped?: boolean;
  /** Why the last attempt to write the `tracking:` trackers failed; the loop goes on without them. */
  trackingError?: string;
  /** What the last tracking call did with each tracker (absent before the first, or in runs from before it existed). */
  tracking?: TrackerOutcome[];
  /** Every `retry --set` change the run's config has had, oldest first. */
  configChanges?: string[];
}

/** A unit of generation work: `generation.shardSize` conversations of one split. */
export interface ShardSpec {
  split: 'eval' | 'train';
  index: number;
  /** The split's conversations start…end-1 (task-major), or — plans recorded before `unit` — its tasks start…end-1
   *  with every sample of each (activities/generation/plan-shards.ts). */
  start: number;
  end: number;
  /** Conversations in the shard; absent in plans recorded before it existed. */
  conversations?: number;
  unit?: 'conversation';
}

/** Shard activities one iteration runs at once unless `generation.parallelShards` says otherwise (the value of
 *  iterations whose config predates the option). */
export const DEFAULT_PARALLEL_SHARDS = 16;

/** A shard's name within its iteration ("eval-3"): results, budget ledger entries and progress reports go by it. */
export const shardKey = (shard: Pick<ShardSpec, 'split' | 'index'>) => `${shard.split}-${shard.index}`;

export interface ShardInput {
  runName: string;
  iteration: number;
  config: LoopConfig;
  shard: ShardSpec;
  agent: EndpointRef;
  /** The endpoint serving each served role (absent in iterations deployed before model roles: `agent` plays all). */
  roles?: Record<string, EndpointRef>;
  /** The iteration's budget ledger (absent in iterations started before exact budgets: no per-call check). */
  ledger?: BudgetLedgerInput;
}

/** Where an LLM-calling activity counts its calls against the run's `budget` (activities/llm/budget-ledger.ts). */
export interface BudgetLedgerInput {
  /** The run's name as the user types it (for the "raise it with collab-loop retry" hint). */
  run: string;
  /** This activity's entry in the iteration's ledger: its shard key, or "build-data". */
  spender: string;
  /** Bumped when a retry restarts generation: the ledger of the abandoned plan is left behind. */
  epoch: number;
  /** What the run's earlier iterations spent. */
  before: Spend;
  /** What this iteration's finished shards spent, as the workflow knows it (a fresh worker process knows no more). */
  finished: Spend;
}

export interface ShardResult {
  records: ArtifactRef;
  conversations: number;
  calls: number;
  cachedCalls: number;
  tokens: number;
  /** LLM spend per model role (absent in shards run before budgets). */
  spend?: Record<string, Spend>;
  /** The shard's work in the progress model's terms (absent in shards run before live progress). */
  work?: FinishedWork;
  /** What the recipe's generate counts (absent in shards run before it was returned: then conversations). */
  unit?: ProgressUnit;
}

/** LLM spend: tokens (prompt + completion) and what they cost in US dollars at the endpoints' `price` (0 without). */
export interface Spend {
  tokens: number;
  usd: number;
}

/** A run's or an iteration's spend, in total, per stage and per model role. */
export interface SpendReport {
  total: Spend;
  byStage: Partial<Record<Stage, Spend>>;
  byRole: Record<string, Spend>;
}

/** What the served checkpoint answered to the probe prompts, right after it became healthy. */
export interface ProbeResult {
  records: ArtifactRef;
  prompts: number;
  /** The model name the server was asked for (for `transformers serve`: the checkpoint path). */
  model: string;
  completionTokens: number;
  /** sha256 of the answers, in order: equal across iterations only if the served weights answer identically. */
  answersSha256: string;
}

export interface DeployResult {
  /** Who plays the primary role: its served model, or the simulated policy when the config has `agents:`. */
  endpoint: EndpointRef;
  /** The primary checkpoint's own server (absent for simulator and external servers). */
  served?: { endpoint: EndpointRef; probe?: ProbeResult };
  serverId?: string;
  manifest: ArtifactRef;
  /** Every role: who plays it and from which checkpoint (absent for deploys of one model, before model roles). */
  roles?: Record<string, DeployedRole>;
  /** The role whose chain is the loop's checkpoint: the first trained role (else the first role). */
  primaryRole?: string;
}

export interface DeployedRole {
  kind: RoleKind;
  endpoint: EndpointRef;
  checkpoint?: string;
  probe?: ProbeResult;
}

/** One role's datasets: SFT examples, preference pairs, prompts for online RL. */
export interface RoleDatasets {
  sft?: ArtifactRef;
  dpo?: ArtifactRef;
  rl?: ArtifactRef;
}

/** A scorer role trained this iteration before the data that needs it (RecipeNeeds.scorers; SWEET-RL's critic):
 *  its new checkpoint, the endpoint serving it when the serving kind gives prompt log-probs, and its rows. */
export interface ScorerModel {
  checkpoint: string;
  endpoint?: EndpointRef;
  data?: RoleDatasets;
}

/** The build-data stage's datasets: the primary role's at the top, every trained role's under `roles`. */
export interface BuiltData extends RoleDatasets {
  roles?: Record<string, RoleDatasets>;
  manifest: ArtifactRef;
  usage?: LlmUsage;
  /** LLM spend per model role of the data builder's calls (absent before budgets). */
  spend?: Record<string, Spend>;
}

export interface TrainResult {
  checkpoint: string;
  manifest: ArtifactRef;
  finalLoss?: number;
  steps?: number;
  /** Set when this attempt continued from a checkpoint an earlier attempt saved. */
  resumedFromStep?: number;
  /** Every (step, loss) progress line the trainer printed, as JSONL rows {step, loss}. */
  lossCurve?: ArtifactRef;
}
