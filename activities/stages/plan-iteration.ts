// The plan stage: an iteration's generation shards (over the config's recipe's conversations, `generation.shardSize`
// each) and what its recipe needs besides generation. `planShards` alone is what iterations recorded before recipes
// declared their needs scheduled.
import { ApplicationFailure } from '@temporalio/activity';
import type { ActivitySignatures } from '../../contracts/activities';
import type { ShardSpec } from '../../contracts/run';
import { planShards as shardsOf } from '../generation/plan-shards';
import { recipeNeeds, recipeRuntime } from '../recipes/runtime';

type PlanInput = Parameters<ActivitySignatures['planIteration']>[0];

/** Each shard adds ~4 KB to the iteration's history (its input, result, progress signal and workflow tasks: 0.40 MB
 *  for 101 shards in `npm run bench -- scale`): 3,000 keep it near 12 MB, a quarter of Temporal's 50 MB limit, with
 *  room for retries. */
export const MAX_SHARDS = 3000;

async function shards({ config, evalOnly }: PlanInput) {
  const plan = shardsOf(await recipeRuntime(config), config.generation.shardSize, evalOnly);
  if (plan.length > MAX_SHARDS) {
    const conversations = plan.reduce((a, s) => a + (s.conversations ?? 0), 0);
    throw ApplicationFailure.nonRetryable(
      `generation.shardSize: ${config.generation.shardSize} makes ${plan.length} shards of ${conversations} conversations, more than ${MAX_SHARDS} (each adds to the iteration's history, which Temporal caps at 50 MB); raise it to at least ${fittingShardSize(plan)} (collab-loop retry <run> --set generation.shardSize=N)`,
      'ConfigError',
    );
  }
  return plan;
}

/** The smallest shardSize whose plan has at most MAX_SHARDS shards (each split rounds its last shard up). */
export function fittingShardSize(plan: readonly ShardSpec[]): number {
  const perSplit = new Map<string, number>();
  for (const s of plan) perSplit.set(s.split, (perSplit.get(s.split) ?? 0) + (s.conversations ?? 0));
  const shards = (size: number) => [...perSplit.values()].reduce((a, n) => a + Math.ceil(n / size), 0);
  let size = Math.ceil([...perSplit.values()].reduce((a, n) => a + n, 0) / MAX_SHARDS);
  while (shards(size) > MAX_SHARDS) size++;
  return size;
}

export const planShards: ActivitySignatures['planShards'] = async (input) => shards(input);

export const planIteration: ActivitySignatures['planIteration'] = async (input) => ({
  shards: await shards(input),
  needs: recipeNeeds(input.config),
});
