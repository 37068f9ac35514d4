// Splits each split's (task × sample) space into shards of `shardSize` tasks.
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
    const n = runtime.taskCount(split);
    const samples = runtime.samplesPerTask(split);
    for (let start = 0, index = 0; start < n; start += shardSize, index++) {
      const end = Math.min(n, start + shardSize);
      out.push({ split, index, start, end, conversations: (end - start) * samples });
    }
  }
  return out;
}
