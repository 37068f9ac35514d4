// Turns the evaluation split's records into the recipe's metrics (CoRal: agreement_correctness, ...), folded as the
// records stream past shard by shard.
import type { ArtifactRef, ShardResult } from '../../contracts/run';
import type { StageContext } from '../../contracts/activities';
import { recipeRuntime } from '../recipes/runtime';
import { writeStageManifest } from '../manifest';
import { storeFor } from '../artifacts/store';

export async function evaluateIteration(
  input: StageContext & { checkpoint: string; shards: ShardResult[] },
): Promise<{ metrics: Record<string, number>; manifest: ArtifactRef }> {
  const store = storeFor(input.config);
  const runtime = await recipeRuntime(input.config);
  const fold = runtime.metricsFold();
  const conversations = await store.forEachRow(
    input.shards.map((s) => s.records),
    (r) => fold.add(r),
  );
  const metrics = fold.result();
  const metricsRef = await store.putJson(metrics);
  const calls = input.shards.reduce((a, s) => a + s.calls, 0);
  const manifest = await writeStageManifest(input.config, {
    run: input.runName,
    iteration: input.iteration,
    stage: 'evaluate',
    inputs: { checkpoint: input.checkpoint, ...Object.fromEntries(input.shards.map((s, i) => [`eval_shard_${i}`, s.records])) },
    params: { recipe: input.config.recipe, seed: input.config.seed },
    outputs: { metrics: metricsRef, conversations, llm_calls: calls },
  });
  return { metrics, manifest };
}
