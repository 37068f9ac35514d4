// The build-scorer-data stage: the rows that train the recipe's scorer roles (RecipeNeeds.scorers; SWEET-RL's
// learned critic) this iteration, before the data that needs them is built.
import { ApplicationFailure } from '@temporalio/activity';
import type { StageContext } from '../../contracts/activities';
import type { RoleDatasets, ShardResult } from '../../contracts/run';
import { datasetRef } from '../data/dataset-ref';
import { recipeRuntime } from '../recipes/runtime';
import { storeFor } from '../artifacts/store';

export async function buildScorerData(
  input: StageContext & { checkpoint: string; shards: ShardResult[] },
): Promise<{ roles: Record<string, RoleDatasets>; counts: Record<string, number> }> {
  const store = storeFor(input.config);
  const records = await store.readJsonlAll<unknown>(input.shards.map((s) => s.records));
  const runtime = await recipeRuntime(input.config);
  if (!runtime.buildScorerData) throw ApplicationFailure.nonRetryable(`recipe ${input.config.recipe.name} trains no scorer`, 'ConfigError');
  const data = runtime.buildScorerData(records);
  const toRef = (lines: string[]) => datasetRef(store, lines);
  const roles = Object.fromEntries(
    await Promise.all(Object.entries(data.byRole).map(async ([r, d]) => [r, { sft: await toRef(d.sft), dpo: await toRef(d.dpo) }])),
  );
  return { roles, counts: data.counts };
}
