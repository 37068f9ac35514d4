// The activity signatures the workflows schedule. Types only: workflows never import activity code.
import type {
  ArtifactRef, DeployResult, IterationInput, LoopConfig, ShardInput, ShardResult, ShardSpec, TrainResult,
} from './types';

export interface StageContext {
  runName: string;
  iteration: number;
  config: LoopConfig;
}

export interface CollabActivities {
  deployCheckpoint(input: StageContext & { checkpoint: string }): Promise<DeployResult>;
  undeployCheckpoint(input: StageContext): Promise<boolean>;
  planShards(input: { config: LoopConfig; evalOnly: boolean }): Promise<ShardSpec[]>;
  runShard(input: ShardInput): Promise<ShardResult>;
  evaluateIteration(input: StageContext & { checkpoint: string; shards: ShardResult[] }): Promise<{ metrics: Record<string, number>; manifest: ArtifactRef }>;
  buildTrainingData(input: StageContext & { checkpoint: string; shards: ShardResult[] }): Promise<{ sft?: ArtifactRef; dpo?: ArtifactRef; manifest: ArtifactRef }>;
  trainCheckpoint(input: StageContext & { checkpoint: string; data: { sft?: ArtifactRef; dpo?: ArtifactRef } }): Promise<TrainResult>;
}

export type { IterationInput };
