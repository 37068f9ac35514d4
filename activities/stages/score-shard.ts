// Scores one generation shard where the recipe needs untrusted code run (the Python sandbox) or pages rendered
// (Chromium) — on the sandbox task queue, so the machines that generate never execute agent code. Returns the shard
// with its records replaced by the scored ones; only refs travel through Temporal.
import { ApplicationFailure } from '@temporalio/activity';
import type { ShardResult, ShardSpec } from '../../contracts/run';
import type { StageContext } from '../../contracts/activities';
import { storeFor } from '../artifacts/store';
import { recipeRuntime } from '../recipes/runtime';
import { scoringServices } from '../generation/services';
import { startHeartbeat } from '../heartbeat';

export async function scoreShard(input: StageContext & { split: ShardSpec['split']; shard: ShardResult }): Promise<ShardResult> {
  const runtime = await recipeRuntime(input.config);
  if (!runtime.scoreRecords)
    throw ApplicationFailure.nonRetryable(`recipe ${input.config.recipe.name} has nothing to score`, 'ConfigError');
  const store = storeFor(input.config);
  const records = await store.readJsonl<unknown>(input.shard.records);
  const hb = startHeartbeat({ scored: 0, total: records.length });
  try {
    const scored = await runtime.scoreRecords(input.split, records, scoringServices(store));
    return { ...input.shard, records: await store.putJsonl(scored) };
  } finally {
    hb.stop();
  }
}
