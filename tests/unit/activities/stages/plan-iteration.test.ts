import { ApplicationFailure } from '@temporalio/activity';
import { describe, expect, it } from 'vitest';
import { fittingShardSize, MAX_SHARDS, planIteration } from '../../../../activities/stages/plan-iteration';
import { tempStateDir, testConfig } from '../../../helpers/config';

describe('planIteration', () => {
  it('plans shards of shardSize conversations', async () => {
    const config = testConfig(tempStateDir(), (c) => {
      c.recipe.limit = 6;
      c.recipe.evalSamples = 5;
      c.generation.shardSize = 7;
    });
    const { shards } = await planIteration({ config, evalOnly: true });
    expect(shards.map((s) => s.conversations)).toEqual([7, 7, 7, 7, 2]);
  });

  it('refuses a plan whose shards would fill the history, naming the shardSize that fits', async () => {
    const config = testConfig(tempStateDir(), (c) => {
      c.recipe.limit = 24;
      c.recipe.evalSamples = 2000; // 48,000 conversations
      c.generation.shardSize = 10;
    });
    const err = await planIteration({ config, evalOnly: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect((err as ApplicationFailure).nonRetryable).toBe(true);
    expect((err as ApplicationFailure).type).toBe('ConfigError');
    expect((err as Error).message).toBe(
      `generation.shardSize: 10 makes 4800 shards of 48000 conversations, more than ${MAX_SHARDS} (each adds to the iteration's history, which Temporal caps at 50 MB); raise it to at least 16 (collab-loop retry <run> --set generation.shardSize=N)`,
    );
  });

  it('names a shardSize that fits even where each split rounds its last shard up', () => {
    const shard = (split: 'eval' | 'train', conversations: number) => ({ split, index: 0, start: 0, end: conversations, conversations });
    // 3,000,000 / 3,000 = 1,000 would make 1,501 + 1,500 shards.
    expect(fittingShardSize([shard('eval', 1_500_500), shard('train', 1_499_500)])).toBe(1001);
    expect(Math.ceil(1_500_500 / 1001) + Math.ceil(1_499_500 / 1001)).toBeLessThanOrEqual(MAX_SHARDS);
  });
});
