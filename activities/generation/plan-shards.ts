// Splits each split's conversations (task-major: task 0's samples, then task 1's, …) into shards of `shardSize`
// conversations; one task's samples may span two shards. The plan is a pure function of the recipe's task counts
// and the config, so a resumed or retried iteration finds the same shards.
import type { ShardSpec } from '../../contracts/run';
import type { RecipeRuntime, Split } from '../recipes/types';

export function planShards(
  runtime: Pick<RecipeRuntime, 'taskCount' | 'samplesPerTask'>,
  shardSize: number,
  evalOnly: boolean,
): ShardSpec[] {
  const splits: Split[] = evalOnly ? ['eval'] : ['eval', 'train'];
  const out: ShardSpec[] = [];
  for (const split of splits) {
    const total = runtime.taskCount(split) * runtime.samplesPerTask(split);
    for (let start = 0, index = 0; start < total; start += shardSize, index++) {
      const end = Math.min(total, start + shardSize);
      out.push({ split, index, start, end, conversations: end - start, unit: 'conversation' });
    }
  }
  return out;
}

/** The (task, sample) pairs of a shard, in order. Plans recorded before shards counted conversations (no `unit`)
 *  hold task ranges: every sample of tasks start…end-1. */
export function* shardConversations(shard: ShardSpec, samplesPerTask: number): Generator<{ taskIndex: number; sampleIndex: number }> {
  const [first, end] =
    shard.unit === 'conversation' ? [shard.start, shard.end] : [shard.start * samplesPerTask, shard.end * samplesPerTask];
  for (let c = first; c < end; c++) yield { taskIndex: Math.floor(c / samplesPerTask), sampleIndex: c % samplesPerTask };
}
