// The plan stage: an iteration's generation shards (over the config's recipe's conversations, `generation.shardSize`
// each) and what its recipe needs besides generation. `planShards` alone is what iterations recorded before recipes
// declared their needs scheduled.
import type { ActivitySignatures } from '../../contracts/activities';
import { planShards as shardsOf } from '../generation/plan-shards';
import { recipeNeeds, recipeRuntime } from '../recipes/runtime';

type PlanInput = Parameters<ActivitySignatures['planIteration']>[0];

const shards = async ({ config, evalOnly }: PlanInput) => shardsOf(await recipeRuntime(config), config.generation.shardSize, evalOnly);

export const planShards: ActivitySignatures['planShards'] = async (input) => shards(input);

export const planIteration: ActivitySignatures['planIteration'] = async (input) => ({
  shards: await shards(input),
  needs: recipeNeeds(input.config),
});
