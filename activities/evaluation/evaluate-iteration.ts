// Turns the evaluation split's records into the recipe's metrics (CoRal: agreement_correctness, ...).
import type { ArtifactRef, ShardResult } from '../../workflows/types';
import type { StageContext } from '../../workflows/activity-types';
import { recipeRuntime } from '../recipes/runtime';
import { storeFor, writeStageManifest } from '../manifest';

export async function evaluateIteration(
  input: StageContext & { checkpoint: string; shards: ShardResult[] },
): Promise<{ metrics: Record<string, number>; manifest: ArtifactRef }> {
  const store = storeFor(input.config.stateDir);
  const records = input.shards.flatMap((s) => store.readJsonl<unknown>(s.records));
  const metrics = recipeRuntime(input.config).metrics(records);
  const metricsRef = store.putJson(metrics);
  const calls = input.shards.reduce((a, s) => a + s.calls, 0);
  const manifest = writeStageManifest(input.config.stateDir, {
    run: input.runName,
    iteration: input.iteration,
    stage: 'evaluate',
    inputs: { checkpoint: input.checkpoint, ...Object.fromEntries(input.shards.map((s, i) => [`eval_shard_${i}`, s.records])) },
    params: { recipe: input.config.recipe, seed: input.config.seed },
    outputs: { metrics: metricsRef, conversations: records.length, llm_calls: calls },
  });
  return { metrics, manifest };
}
