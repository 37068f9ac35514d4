// Turns the evaluation split's records into the recipe's metrics (CoRal: agreement_correctness, ...).
import type { ArtifactRef, ShardResult } from '../../contracts/run';
import type { StageContext } from '../../contracts/activities';
import { recipeRuntime } from '../recipes/runtime';
import { writeStageManifest } from '../manifest';
import { storeFor } from '../artifacts/store';

export async function evaluateIteration(
  input: StageContext & { checkpoint: string; shards: ShardResult[] },
): Promise<{ metrics: Record<string, number>; manifest: ArtifactRef }> {
  const store = storeFor(input.config);
  const records = await store.readJsonlAll<unknown>(input.shards.map((s) => s.records));
  const metrics = (await recipeRuntime(input.config)).metrics(records);
  const metricsRef = await store.putJson(metrics);
  const calls = input.shards.reduce((a, s) => a + s.calls, 0);
  const manifest = await writeStageManifest(input.config, {
    run: input.runName,
    iteration: input.iteration,
    stage: 'evaluate',
    inputs: { checkpoint: input.checkpoint, ...Object.fromEntries(input.shards.map((s, i) => [`eval_shard_${i}`, s.records])) },
    params: { recipe: input.config.recipe, seed: input.config.seed },
    outputs: { metrics: metricsRef, conversations: records.length, llm_calls: calls },
  });
  return { metrics, manifest };
}
