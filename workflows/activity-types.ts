// The activity signatures the workflows schedule. Types only: workflows never import activity code.
import type {
  ArtifactRef,
  DeployResult,
  EndpointRef,
  IterationInput,
  IterationSummary,
  LlmUsage,
  LoopConfig,
  ShardInput,
  ShardResult,
  ShardSpec,
  TrainResult,
} from './types';
import type { RecipeNeeds } from '../activities/recipes/types';

export interface StageContext {
  runName: string;
  iteration: number;
  config: LoopConfig;
}

export interface CollabActivities {
  deployCheckpoint(input: StageContext & { checkpoint: string }): Promise<DeployResult>;
  undeployCheckpoint(input: StageContext): Promise<boolean>;
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
  /** `agent`: the served endpoint, for recipes whose data needs model calls (SWEET-RL). */
  buildTrainingData(
    input: StageContext & { checkpoint: string; shards: ShardResult[]; agent?: EndpointRef },
  ): Promise<{ sft?: ArtifactRef; dpo?: ArtifactRef; manifest: ArtifactRef; usage?: LlmUsage }>;
  /** Logs the finished iterations (metrics, params, lineage, report) to the config's `tracking:` trackers. Idempotent. */
  trackIteration(input: { runName: string; config: LoopConfig; iterations: IterationSummary[]; final: boolean }): Promise<void>;
  trainCheckpoint(input: StageContext & { checkpoint: string; data: { sft?: ArtifactRef; dpo?: ArtifactRef } }): Promise<TrainResult>;
}

export type { IterationInput };
