// What one iteration keeps across its stages and their retries: each finished stage's result (so a retry never
// redoes finished work), the config in effect, and the status the UI, `status` and the loop read.
import { runDataName } from '../contracts/run-data-name';
import { patched } from '@temporalio/workflow';
import { PATCHES } from './patches';
import type { ConfigRef, RecipeNeeds } from '../contracts/activities';
import type { LoopConfig } from '../contracts/config';
import type { RetryRequest } from '../contracts/messages';
import type {
  ArtifactRef,
  BuiltData,
  DeployResult,
  EndpointRef,
  IterationInput,
  IterationStatus,
  ShardResult,
  ShardSpec,
  TrainResult,
} from '../contracts/run';
import { shardKey } from '../contracts/run';

/** The patches an iteration asks at its start, by their names in PATCHES (patches.ts says what each changed): each is
 *  true in iterations started after it shipped. */
export interface IterationPatches {
  modelRoles: boolean;
  visible: boolean;
  declaresNeeds: boolean;
  budgets: boolean;
  retryConfig: boolean;
  exactBudgets: boolean;
  liveProgress: boolean;
  planToLoop: boolean;
  configByRef: boolean;
}

/** The generate stage's plan: its shards, and what the recipe needs from the other stages. */
export interface IterationPlan {
  shards: ShardSpec[];
  needs: RecipeNeeds;
}

export interface IterationState {
  readonly input: IterationInput;
  /** The config in effect: a `retry --set` replaces it. */
  config: LoopConfig;
  /** `config` as keepConfig stored it (config-by-ref-v1): what stage inputs carry; a changed config is stored again. */
  configRef?: ConfigRef;
  /** The checkpoint this iteration serves and trains from (the loop's), and each trained role's: IterationInput's,
   *  unless a retry changed the baseCheckpoint they still were. */
  checkpoint: string;
  checkpoints?: Record<string, string>;
  readonly patches: IterationPatches;
  readonly status: IterationStatus;
  /** Set by the `retryStage` update while a stage needs attention. */
  retry?: RetryRequest;
  deployed?: DeployResult;
  undeployed: boolean;
  /** The servers were stopped while paused, or lost (redeploy.ts): the next stage that needs them deploys again first. */
  released?: boolean;
  /** Deploys again after lost servers since the iteration started or a lost server last needed attention (redeploy.ts). */
  redeploys?: number;
  plan?: IterationPlan;
  /** By shardKey: kept across retries, so a retried generate runs only the shards still missing. */
  readonly shardResults: Map<string, ShardResult>;
  evaluation?: { metrics: Record<string, number>; manifest: ArtifactRef };
  data?: BuiltData;
  /** The primary role's (or the one model's) training. */
  trained?: TrainResult;
  /** Per trained role, kept across retries of the train stage: a retry trains only the roles that failed. */
  readonly trainedRoles: Map<string, TrainResult>;
  /** The budget ledger's generation (BudgetLedgerInput.epoch): bumped when a retry restarts generation. */
  budgetEpoch: number;
}

/** The patches are asked in the order iterations always asked them. */
export function newIterationState(input: IterationInput): IterationState {
  const modelRoles = patched(PATCHES.modelRoles.id);
  const visible = patched(PATCHES.visible.id);
  const declaresNeeds = patched(PATCHES.declaresNeeds.id);
  const budgets = patched(PATCHES.budgets.id);
  const retryConfig = patched(PATCHES.retryConfig.id);
  const exactBudgets = patched(PATCHES.exactBudgets.id);
  const liveProgress = patched(PATCHES.liveProgress.id);
  const planToLoop = patched(PATCHES.planToLoop.id);
  const configByRef = patched(PATCHES.configByRef.id);
  return {
    input,
    config: input.config,
    checkpoint: input.checkpoint,
    ...(input.checkpoints ? { checkpoints: input.checkpoints } : {}),
    patches: { modelRoles, visible, declaresNeeds, budgets, retryConfig, exactBudgets, liveProgress, planToLoop, configByRef },
    status: {
      iteration: input.iteration,
      stage: 'deploy',
      paused: false,
      shards: { done: 0, total: 0 },
      conversations: { done: 0, total: 0 },
      tokens: 0,
      stages: {},
      ...(input.configChanges?.length ? { configChanges: input.configChanges } : {}),
    },
    undeployed: false,
    shardResults: new Map(),
    trainedRoles: new Map(),
    budgetEpoch: 0,
  };
}

/** What every stage activity is told: which run, which iteration, the config in effect. The stages name files by
 *  the run, so a restarted run is told its data name (contracts/run-data-name.ts); a first run, its plain name. */
export const stageContext = (s: IterationState) => ({ runName: runDataName(s.input), iteration: s.input.iteration, ...configInput(s) });

/** The config as an activity input carries it: by reference once the iteration stored it (config-by-ref-v1). */
export const configInput = (s: IterationState) => (s.configRef ? { configRef: s.configRef } : { config: s.config });

/** Training data is built only for loops that train, from a train split (as the iteration started: a retry's
 *  config does not change it). */
export const wantsTrainData = (s: IterationState) => !s.input.evalOnly && !!s.input.config.recipe.trainTasks;

/** A split's finished shards, in plan order, as a stage that reads their records is told them: without the spend and
 *  progress the workflow keeps for itself, so a thousand shards add their refs, not their accounting, to history. */
export const recordsOf = (s: IterationState, split: ShardSpec['split']): ShardResult[] =>
  (s.plan?.shards ?? [])
    .filter((x) => x.split === split)
    .flatMap((x) => s.shardResults.get(shardKey(x)) ?? [])
    .map(({ records, conversations, calls, cachedCalls, tokens }) => ({ records, conversations, calls, cachedCalls, tokens }));

export const conversationsIn = (shards: ShardResult[]) => shards.reduce((a, x) => a + x.conversations, 0);

/** A stage's input from an earlier stage; stages run in order, so a miss is a bug, reported as such. */
export function earlier<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`internal: ${what} is missing although its stage ran`);
  return value;
}

/** The endpoint serving each served role (iterations deployed before model roles have none: `agent` plays all). */
export const servedEndpoints = (deployed: DeployResult): { roles?: Record<string, EndpointRef> } =>
  deployed.roles ? { roles: Object.fromEntries(Object.entries(deployed.roles).map(([r, d]) => [r, d.endpoint])) } : {};

/** The checkpoint a trained role was served from this iteration (its training starts there). */
export const servedCheckpoint = (deployed: DeployResult, role: string): string =>
  earlier(deployed.roles?.[role]?.checkpoint, `the served checkpoint of role ${role}`);
