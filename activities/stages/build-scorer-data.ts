// The build-scorer-data stage: the rows that train the recipe's scorer roles (RecipeNeeds.scorers; SWEET-RL's
// learned critic) this iteration, before the data that needs them is built.
import { ApplicationFailure } from '@temporalio/activity';
import type { StageContext } from '../../contracts/activities';
import type { RoleDatasets, ShardResult } from '../../contracts/run';
import { buildToFiles } from '../data/dataset-files';
import { localStateDir } from '../storage/run-storage';
import { recipeRuntime } from '../recipes/runtime';
import { storeFor } from '../artifacts/store';

export async function buildScorerData(
  input: StageContext & { checkpoint: string; shards: ShardResult[] },
): Promise<{ roles: Record<string, RoleDatasets>; counts: Record<string, number> }> {
  const store = storeFor(input.config);
  const runtime = await recipeRuntime(input.config);
  const builder = runtime.scorerDataBuilder;
  if (!builder) throw ApplicationFailure.nonRetryable(`recipe ${input.config.recipe.name} trains no scorer`, 'ConfigError');
  const shards = input.shards.map((s) => s.records);
  const { refs, counts } = await buildToFiles(store, localStateDir(input.config), shards, (sink) => builder(sink));
  // A role without rows has no datasets (it keeps its checkpoint).
  const roles: Record<string, RoleDatasets> = {};
  for (const name of refs.keys()) {
    const role = name.slice(0, name.indexOf('/'));
    roles[role] ??= { sft: refs.get(`${role}/sft`), dpo: refs.get(`${role}/dpo`) };
  }
  return { roles, counts };
}
