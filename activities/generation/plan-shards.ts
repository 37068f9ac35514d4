// Splits each split's (task × sample) space into shards of `generation.shardSize` tasks.
import type { LoopConfig } from '../../contracts/config';
import type { ShardSpec } from '../../contracts/run';
import { recipeRuntime, type Split } from '../recipes/runtime';

export function planShards(config: LoopConfig, evalOnly: boolean): ShardSpec[] {
  const runtime = recipeRuntime(config);
  const splits: Split[] = evalOnly ? ['eval'] : ['eval', 'train'];
  const out: ShardSpec[] = [];
  for (const split of splits) {
    const n = runtime.taskCount(split);
    const samples = runtime.samplesPerTask(split);
    for (let start = 0, index = 0; start < n; start += config.generation.shardSize, index++) {
      const end = Math.min(n, start + config.generation.shardSize);
      out.push({ split, index, start, end, conversations: (end - start) * samples });
    }
  }
  return out;
}
