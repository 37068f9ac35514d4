import { ApplicationFailure } from '@temporalio/activity';
import { describe, expect, it } from 'vitest';
import { MAX_SHARDS, planIteration } from '../../../../activities/stages/plan-iteration';
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
});
