// The activity signatures the workflows schedule. Types only: workflows never import activity code.
import type {
  ArtifactRef,
  BudgetLedgerInput,
  BuiltData,
  DeployResult,
  EndpointRef,
  IterationInput,
  IterationSummary,
  LoopConfig,
  ShardInput,
  ShardResult,
  ShardSpec,
  RoleDatasets,
  ScorerModel,
  TrainResult,
  QueueClass,
} from './run';
import type { TrackerOutcome } from './tracking';

export interface StageContext {
  runName: string;
  iteration: number;
  config: LoopConfig;
}

/** The iteration's config as stored once in the artifact store (keepConfig), and where that store is: what an
 *  activity input carries instead of the whole config in iterations with config-by-ref-v1, so a thousand shards do
 *  not write the config into history a thousand times. The activity wrapper (activities/index.ts) loads it back. */
export interface ConfigRef {
  ref: ArtifactRef;
  stateDir: string;
  storage?: LoopConfig['storage'];
}

/** An activity input as the workflow sends it: its `config` inline, or by reference. */
export type WireInput<T> = T extends { config: LoopConfig } ? Omit<T, 'config'> & ({ config: LoopConfig } | { configRef: ConfigRef }) : T;

export interface BuildDataInput extends StageContext {
  checkpoint: string;
  shards: ShardResult[];
  agent?: EndpointRef;
  roles?: Record<string, EndpointRef>;
  /** The scorer roles trained this iteration (RecipeNeeds.scorers): their checkpoint, endpoint and rows. */
  scorers?: Record<string, ScorerModel>;
  /** The iteration's budget ledger (absent in iterations started before exact budgets). */
  ledger?: BudgetLedgerInput;
}

/** Every activity's signature, once. Workflows schedule through a queue's interface below, never through this. */
export interface ActivitySignatures {
  /** `checkpoints` (each trained role's chain so far) asks for one server per distinct checkpoint of the served
   *  roles; without it (iterations before model roles) one server plays every role. */
  deployCheckpoint(input: StageContext & { checkpoint: string; checkpoints?: Record<string, string> }): Promise<DeployResult>;
  undeployCheckpoint(input: StageContext): Promise<boolean>;
  /** Stores the iteration's config once (config-by-ref-v1): later inputs carry the reference. */
  keepConfig(input: { config: LoopConfig }): Promise<ConfigRef>;
  /** Before recipe-needs-v1; kept for iterations recorded before it. */
  planShards(input: { config: LoopConfig; evalOnly: boolean }): Promise<ShardSpec[]>;
  /** The shards, and what the recipe needs from the other stages (RecipeNeeds). */
  planIteration(input: { config: LoopConfig; evalOnly: boolean }): Promise<{ shards: ShardSpec[]; needs: RecipeNeeds }>;
  runShard(input: ShardInput): Promise<ShardResult>;
  evaluateIteration(
    input: StageContext & { checkpoint: string; shards: ShardResult[] },
  ): Promise<{ metrics: Record<string, number>; manifest: ArtifactRef }>;
  /** Recipes that run agent code or render pages score each shard on the sandbox queue. */
  scoreShard(input: StageContext & { split: ShardSpec['split']; shard: ShardResult }): Promise<ShardResult>;
  /** `agent` (and `roles`, each served role's endpoint): for recipes whose data needs model calls (SWEET-RL). */
  buildTrainingData(input: BuildDataInput): Promise<BuiltData>;
  /** The rows that train the recipe's scorer roles (RecipeNeeds.scorers), before the data that needs them. */
  buildScorerData(
    input: StageContext & { checkpoint: string; shards: ShardResult[] },
  ): Promise<{ roles: Record<string, RoleDatasets>; counts: Record<string, number> }>;
  /** Serves the scorer roles' new checkpoints where the serving kind answers prompt log-probs. */
  serveScorers(input: StageContext & { checkpoints: Record<string, string> }): Promise<Record<string, ScorerModel>>;
  /** Logs the finished iterations (metrics, params, lineage, report) to the config's `tracking:` trackers, side by
   *  side, each within its timeout. Idempotent. A tracker that fails is in the outcomes, never thrown. */
  trackIteration(input: { runName: string; config: LoopConfig; iterations: IterationSummary[]; final: boolean }): Promise<TrackerOutcome[]>;
  /** `role`: set when an iteration trains several roles; each then has its own directories and checkpoint chain. */
  trainCheckpoint(input: StageContext & { checkpoint: string; data: RoleDatasets; role?: string }): Promise<TrainResult>;
}

export type { IterationInput };

/** The queue classes whose workers run activities (the workflows queue runs workflow tasks only). */
export type ActivityQueue = Exclude<QueueClass, 'workflows'>;

/** The activities each queue class's workers register, so the only ones a workflow can schedule on it; the gpu
 *  class queues (`collab-loop-gpu-<class>`, contracts/placement.ts) are gpu queues. An activity scheduled on two
 *  queues is in both lists: buildTrainingData runs on llm when the data needs model calls, else on cpu. */
export const QUEUE_ACTIVITIES = {
  // planShards: only iterations recorded before recipe-needs-v1 schedule it, on cpu; it stays there for their replay.
  cpu: ['keepConfig', 'planShards', 'planIteration', 'evaluateIteration', 'buildScorerData', 'buildTrainingData', 'trackIteration'],
  llm: ['runShard', 'buildTrainingData'],
  gpu: ['deployCheckpoint', 'undeployCheckpoint', 'serveScorers', 'trainCheckpoint'],
  sandbox: ['scoreShard'],
} as const satisfies Record<ActivityQueue, ReadonlyArray<keyof ActivitySignatures>>;

/** The interface of one queue class: what its proxy may schedule and its workers register. */
export type QueueActivities<Q extends ActivityQueue> = Pick<ActivitySignatures, (typeof QUEUE_ACTIVITIES)[Q][number]>;
/** The same, as a workflow schedules them: a config may travel by reference (WireInput). */
export type WireActivities<Q extends ActivityQueue> = {
  [K in keyof QueueActivities<Q>]: (input: WireInput<Parameters<QueueActivities<Q>[K]>[0]>) => ReturnType<QueueActivities<Q>[K]>;
};
export type CpuActivities = QueueActivities<'cpu'>;
export type LlmActivities = QueueActivities<'llm'>;
export type GpuActivities = QueueActivities<'gpu'>;
export type SandboxActivities = QueueActivities<'sandbox'>;
/** Each queue class's activities (what the activity factory builds, activities/index.ts). */
export type ActivitiesByQueue = { [Q in ActivityQueue]: QueueActivities<Q> };

/** Every queue's share of one set of activities (the worker's real ones, the tests' mocks): an activity on two queues
 *  is the same function on both. */
export const byQueue = (all: ActivitySignatures): ActivitiesByQueue =>
  Object.fromEntries(
    Object.entries(QUEUE_ACTIVITIES).map(([q, names]) => [q, Object.fromEntries(names.map((n) => [n, all[n]]))]),
  ) as ActivitiesByQueue;

/** What an iteration must do for a recipe, beyond generating and evaluating (the workflow reads it from planIteration). */
export interface RecipeNeeds {
  /** Records are scored on the sandbox queue before metrics (agent code runs, pages render). */
  sandboxScoring: boolean;
  /** Building the training data calls models (the recipe's roles), so it runs on the llm queue. */
  modelsForData: boolean;
  /** Generation renders pages (Chromium on the worker that runs shards). */
  rendering: boolean;
  /** Generation runs unit tests in the Python sandbox (on the worker that runs shards). */
  unitTests?: boolean;
  /** Trained roles the data builder scores with (SWEET-RL's learned critic): each is trained on `buildScorerData`'s
   *  rows of this iteration and served before `buildDataWithModels` runs, which gets their log-probs. */
  scorers?: string[];
}
