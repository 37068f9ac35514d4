import { describe, expect, it } from 'vitest';
import { planShards, shardConversations } from '../../../../activities/generation/plan-shards';

const runtime = (tasks: number, samples: number) => ({ taskCount: () => tasks, samplesPerTask: () => samples });

describe('planShards', () => {
  it('cuts each split into shards of shardSize conversations, a task spanning two shards', () => {
    const plan = planShards(runtime(3, 4), 5, true); // 12 conversations
    expect(plan.map((s) => [s.start, s.end, s.conversations])).toEqual([
      [0, 5, 5],
      [5, 10, 5],
      [10, 12, 2],
    ]);
    const pairs = plan.flatMap((s) => [...shardConversations(s, 4)]);
    // every conversation once, in task-major order
    expect(pairs).toEqual(Array.from({ length: 12 }, (_, c) => ({ taskIndex: Math.floor(c / 4), sampleIndex: c % 4 })));
    expect(pairs[4]).toEqual({ taskIndex: 1, sampleIndex: 0 }); // task 1 starts in shard 0 and ends in shard 1
  });

  it('holds shardSize conversations however many samples a task has (the many-samples shape)', () => {
    const plan = planShards(runtime(24, 4000), 1000, true);
    expect(plan).toHaveLength(96);
    expect(Math.max(...plan.map((s) => [...shardConversations(s, 4000)].length))).toBe(1000);
  });

  it('plans both splits unless evaluation only, and plans the same shards again', () => {
    const a = planShards(runtime(5, 2), 4, false);
    expect(a.map((s) => `${s.split}-${s.index}`)).toEqual(['eval-0', 'eval-1', 'eval-2', 'train-0', 'train-1', 'train-2']);
    expect(planShards(runtime(5, 2), 4, false)).toEqual(a);
  });

  it('reads a plan recorded before shards counted conversations as task ranges', () => {
    const old = { split: 'eval' as const, index: 1, start: 2, end: 4, conversations: 6 };
    expect([...shardConversations(old, 3)].map((p) => `${p.taskIndex}.${p.sampleIndex}`)).toEqual([
      '2.0',
      '2.1',
      '2.2',
      '3.0',
      '3.1',
      '3.2',
    ]);
  });
});
