// What `status`, `watch` and `start --wait` show of a running stage: the iteration's finished work (its status
// query) plus the measurements in its pending activities' heartbeat details.
import { describe, expect, it } from 'vitest';
import { runningWork, withRunningWork } from '../../../cli/running-work';
import type { StageProgress, WorkProgress } from '../../../contracts/progress';
import type { IterationStatus } from '../../../contracts/run';

const status = (o: Partial<IterationStatus>): IterationStatus => ({
  iteration: 0,
  stage: 'generate',
  paused: false,
  shards: { done: 1, total: 4 },
  conversations: { done: 12, total: 48 },
  tokens: 0,
  stages: {},
  ...o,
});
const piece = (o: Partial<WorkProgress>): WorkProgress => ({
  key: 'k',
  stage: 'generate',
  unit: 'conversations',
  done: 0,
  at: 10_000,
  ...o,
});
const calls = (ok: number) => ({ ok, cached: 0, failed: 0, retried: 0 });
/** A finished shard of 12 conversations, as the iteration's query says it (no running pieces, so no rates). */
const finished: StageProgress = { stage: 'generate', unit: 'conversations', done: 12, total: 48, calls: calls(24), at: 9_000 };

describe('a running stage read from the query and the heartbeat details', () => {
  it('adds the running shards to the finished work: counts, calls, rates and an ETA', () => {
    const running = [
      piece({ key: 'a', done: 6, perSecond: 1, calls: calls(12), callsPerSecond: 2 }),
      piece({ key: 'b', done: 6, perSecond: 2, calls: calls(12) }),
    ];
    expect(withRunningWork(status({ progress: finished }), running, 10_000)).toEqual({
      stage: 'generate',
      unit: 'conversations',
      done: 24,
      total: 48,
      calls: calls(48),
      perSecond: 3,
      callsPerSecond: 2,
      etaSeconds: 8,
      at: 10_000,
    });
  });

  it("takes the unit from the running pieces (a recipe counting records) and the trainers' steps with no finished work", () => {
    expect(
      withRunningWork(status({ progress: { ...finished, done: 0, calls: undefined } }), [piece({ unit: 'records', done: 5 })], 10_000),
    ).toMatchObject({
      unit: 'records',
      done: 5,
      total: 48,
    });
    const trainer = piece({
      key: 'train:critic',
      stage: 'train',
      unit: 'steps',
      role: 'critic',
      done: 12,
      total: 40,
      loss: 0.5,
      perSecond: 0.5,
    });
    expect(withRunningWork(status({ stage: 'train' }), [trainer], 10_000)?.trainers).toEqual([
      { role: 'critic', step: 12, total: 40, loss: 0.5, stepsPerSecond: 0.5, etaSeconds: 56, at: 10_000 },
    ]);
  });

  it("leaves the query's progress as it is: pieces of another stage, a stage that needs attention, no measurements", () => {
    const it = status({ progress: finished });
    expect(withRunningWork(it, [piece({ stage: 'train', unit: 'steps', done: 3 })], 10_000)).toBe(finished);
    expect(withRunningWork({ ...it, attention: { stage: 'generate', error: 'x', since: 'now' } }, [piece({ done: 3 })], 10_000)).toBe(
      finished,
    );
    expect(withRunningWork(it, [], 10_000)).toBe(finished);
    expect(withRunningWork(status({ stage: 'deploy' }), [], 10_000)).toBeUndefined();
  });

  it("reads each activity's measurement beside what its details carry for the next attempt, and skips details without one", () => {
    const work = piece({ done: 4 });
    const details = [
      { done: 4, total: 12, calls: 8, cachedCalls: 0, work }, // a generate shard
      { attempt: 2, step: 8, checkpoint: '/ckpt/8', work: piece({ stage: 'train', unit: 'steps', done: 8 }) }, // a trainer
      { done: 3, total: 12, calls: 6, cachedCalls: 0 }, // a shard of a build that sent its measurement as an update
      { scored: 2, total: 10 },
      { work: { done: 'x' } },
      null,
      'text',
    ];
    expect(runningWork(details).map((w) => [w.stage, w.done])).toEqual([
      ['generate', 4],
      ['train', 8],
    ]);
  });
});
