// A failing activity is retried by its retry policy; one that fails every attempt (or fails for good) does not fail
// the run: its stage waits as "needs attention", shown by the iteration's status query and its search attribute,
// until the user retries it or stops the run. A stop then cleans up the model servers and ends the loop as stopped.
import { ApplicationFailure } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iterationWorkflowId, loopStatusQuery, NeedsAttentionKey, StageKey, stopSignal } from '../../contracts/messages';
import { shardKey } from '../../contracts/run';
import { activityOrder, callsOfStages, defaultAfter, EVAL_CONVERSATIONS, mockActivities, nonRetryable } from '../helpers/mock-activities';
import { iterationHandle, mockedConfig, startRun, startServerAndBundle, withMockedWorkers } from '../helpers/mocked-workers';
import { waitForAttention, waitUntil } from '../helpers/wait';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startServerAndBundle();
});
afterAll(async () => {
  await env?.teardown();
});

describe('needs attention (mocked activities)', () => {
  it('a shard that fails twice is retried and the run completes without attention', async () => {
    const mocks = mockActivities({
      runShard: defaultAfter('runShard', (input, c) => {
        if (shardKey(input.shard) === 'eval-1' && c.attempt < 3) throw new Error(`endpoint overloaded (attempt ${c.attempt})`);
      }),
    });
    const runName = 'shard-retried';
    await withMockedWorkers(env, mocks.activities, async () => {
      const result = await (await startRun(env, runName, mockedConfig())).result();
      const attempts = (key: string) =>
        mocks
          .callsOf('runShard')
          .filter((c) => shardKey(c.input.shard) === key)
          .map((c) => c.attempt);
      expect(attempts('eval-1')).toEqual([1, 2, 3]);
      expect(attempts('eval-0')).toEqual([1]);
      expect(attempts('train-0')).toEqual([1]);
      expect(result.iterations[0].metrics.conversations).toBe(EVAL_CONVERSATIONS);
      expect(result.iterations[0].nextCheckpoint).toBe('mock://checkpoints/shard-retried/iter-1');
    });
  });

  it('a trainer failing every attempt leaves the stage needing attention, visible in the status and search attributes', async () => {
    const mocks = mockActivities({
      trainCheckpoint: async (_input, c) => {
        throw ApplicationFailure.retryable(`simulated crash (attempt ${c.attempt})`, 'TrainerCrashed');
      },
    });
    const runName = 'train-attention';
    await withMockedWorkers(env, mocks.activities, async () => {
      const handle = await startRun(
        env,
        runName,
        mockedConfig((c) => {
          c.trainer.maximumAttempts = 2;
        }),
      );
      const waiting = await waitForAttention(env.client, runName, 0, 30_000);
      expect(waiting.stage).toBe('train');
      expect(waiting.attention).toMatchObject({
        stage: 'train',
        error: 'simulated crash (attempt 2)', // the last attempt's failure
        failureType: 'TrainerCrashed',
      });
      expect(Date.parse(waiting.attention!.since)).not.toBeNaN();
      expect(mocks.callsOf('trainCheckpoint').map((c) => c.attempt)).toEqual([1, 2]);

      // Waiting, not failed: both workflows run, and the iteration is found by its search attributes.
      const child = await iterationHandle(env, runName, 0).describe();
      expect(child.status.name).toBe('RUNNING');
      expect(child.typedSearchAttributes.get(NeedsAttentionKey)).toBe(true);
      expect(child.typedSearchAttributes.get(StageKey)).toBe('train');
      expect((await handle.describe()).status.name).toBe('RUNNING');
      const loop = await handle.query(loopStatusQuery);
      expect(loop).toMatchObject({ iteration: 0, finished: false, stopped: false, done: [] });
    });
  });

  it('stop while a stage needs attention stops the servers and ends the loop as stopped', async () => {
    const mocks = mockActivities({
      runShard: async () => {
        throw nonRetryable('llm.endpoint: unknown model', 'LlmNotFound');
      },
    });
    const runName = 'stop-attention';
    await withMockedWorkers(env, mocks.activities, async () => {
      const handle = await startRun(env, runName, mockedConfig({ iterations: 3 }));
      const waiting = await waitForAttention(env.client, runName, 0, 30_000);
      expect(waiting.attention).toMatchObject({ stage: 'generate', failureType: 'LlmNotFound' });
      await handle.signal(stopSignal, 'requested by the test');
      const result = await handle.result();
      expect(result).toMatchObject({ stopped: true, iterations: [] });
      // The deployed servers are stopped on the way out; nothing after generate ran, and no later iteration started.
      expect(activityOrder(mocks.calls, iterationWorkflowId(runName, 0))).toEqual(callsOfStages('deploy', 'generate', 'undeploy'));
      expect(new Set(mocks.calls.map((c) => c.workflowId))).toEqual(new Set([iterationWorkflowId(runName, 0)]));
      await waitUntil(
        async () => (await iterationHandle(env, runName, 0).describe()).status.name === 'CANCELLED',
        10_000,
        'iteration cancelled',
      );
    });
  });
});
