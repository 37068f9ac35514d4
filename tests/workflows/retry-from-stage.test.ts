// `collab-loop retry` on a stage that needs attention: the default re-runs that stage only; `--stage` an earlier one
// re-runs it and every later stage (a retry from generate plans and runs every shard again but keeps the deployed
// servers); `--set` hands the iteration a new config that the retried stage and every later iteration run with.
// The retry update is refused for a later stage, and when nothing needs attention.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iterationStatusQuery, iterationWorkflowId, retryStageUpdate } from '../../contracts/messages';
import {
  activityOrder,
  callsOfStages,
  defaultAfter,
  deployedEndpoint,
  EVAL_CONVERSATIONS,
  mockActivities,
  nonRetryable,
} from '../helpers/mock-activities';
import { iterationHandle, mockedConfig, startRun, startServerAndBundle, withMockedWorkers } from '../helpers/mocked-workers';
import { waitForAttention } from '../helpers/wait';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startServerAndBundle();
});
afterAll(async () => {
  await env?.teardown();
});

describe('retry from a stage (mocked activities)', () => {
  it('a retry from generate re-runs generate and every later stage, not deploy', async () => {
    const mocks = mockActivities({
      evaluateIteration: defaultAfter('evaluateIteration', (_, c) => {
        if (c.n === 1) throw nonRetryable('the metrics script has a bug', 'TemplateError');
      }),
    });
    const runName = 'retry-generate';
    await withMockedWorkers(env, mocks.activities, async () => {
      const config = mockedConfig();
      const handle = await startRun(env, runName, config);
      const waiting = await waitForAttention(env.client, runName, 0, 30_000);
      expect(waiting.attention).toMatchObject({ stage: 'evaluate', error: 'the metrics script has a bug', failureType: 'TemplateError' });
      expect(waiting.stage).toBe('evaluate');

      const child = iterationHandle(env, runName, 0);
      // Only the stage that needs attention or an earlier one.
      await expect(child.executeUpdate(retryStageUpdate, { args: [{ stage: 'train' }] })).rejects.toThrow();
      expect(await child.executeUpdate(retryStageUpdate, { args: [{ stage: 'generate' }] })).toBe('retrying from stage generate');
      const result = await handle.result();

      expect(activityOrder(mocks.calls, iterationWorkflowId(runName, 0))).toEqual([
        ...callsOfStages('deploy', 'generate', 'evaluate'),
        // retried from generate: planned again, every shard again
        ...callsOfStages('generate', 'evaluate', 'build-data', 'undeploy', 'train'),
      ]);
      // Every shard, the retried ones too, used the servers deployed once.
      const endpoints = new Set(mocks.callsOf('runShard').map((c) => c.input.agent.baseUrl));
      expect([...endpoints]).toEqual([deployedEndpoint(1, config.baseCheckpoint).baseUrl]);
      expect(result.iterations[0].metrics.conversations).toBe(EVAL_CONVERSATIONS); // the two eval shards' conversations, counted once
      // Nothing needs attention once it is retried; a second retry is refused.
      const after = await child.query(iterationStatusQuery);
      expect(after.attention).toBeUndefined();
      await expect(child.executeUpdate(retryStageUpdate, { args: [{}] })).rejects.toThrow();
    });
  });

  it('a plain retry re-runs only the stage that needs attention', async () => {
    const mocks = mockActivities({
      trainCheckpoint: defaultAfter('trainCheckpoint', (_, c) => {
        if (c.n === 1) throw nonRetryable('trainer.command: no such file');
      }),
    });
    const runName = 'retry-train';
    await withMockedWorkers(env, mocks.activities, async () => {
      const handle = await startRun(env, runName, mockedConfig());
      const waiting = await waitForAttention(env.client, runName, 0, 30_000);
      expect(waiting.attention).toMatchObject({ stage: 'train', failureType: 'TrainerConfigError' });
      expect(mocks.callsOf('trainCheckpoint').map((c) => c.attempt)).toEqual([1]); // non-retryable: one attempt

      expect(await iterationHandle(env, runName, 0).executeUpdate(retryStageUpdate, { args: [{}] })).toBe('retrying from stage train');
      const result = await handle.result();
      expect(activityOrder(mocks.calls, iterationWorkflowId(runName, 0))).toEqual([
        ...callsOfStages('deploy', 'generate', 'evaluate', 'build-data', 'undeploy'),
        'trainCheckpoint×2',
      ]);
      expect(result.iterations[0].nextCheckpoint).toBe('mock://checkpoints/retry-train/iter-1');
    });
  });

  it('a retry with a changed config runs the retried stage and every later iteration with it', async () => {
    const mocks = mockActivities({
      trainCheckpoint: defaultAfter('trainCheckpoint', (input) => {
        if (input.config.trainer?.maximumAttempts !== 5) throw nonRetryable('needs trainer.maximumAttempts=5');
      }),
    });
    const runName = 'retry-set';
    await withMockedWorkers(env, mocks.activities, async () => {
      const config = mockedConfig({ iterations: 2 });
      const handle = await startRun(env, runName, config);
      await waitForAttention(env.client, runName, 0, 30_000);
      const fixed = { ...config, trainer: { ...config.trainer!, maximumAttempts: 5 } };
      const changes = ['trainer.maximumAttempts=5'];
      await iterationHandle(env, runName, 0).executeUpdate(retryStageUpdate, { args: [{ config: fixed, changes }] });
      const result = await handle.result();

      // The broken config trained once; the retry and iteration 1 trained with the fixed one, and no one failed again.
      expect(mocks.callsOf('trainCheckpoint').map((c) => [c.input.iteration, c.input.config.trainer?.maximumAttempts])).toEqual([
        [0, 3],
        [0, 5],
        [1, 5],
      ]);
      // Every activity of iteration 1 was told the fixed config.
      const it1 = mocks.calls.filter((c) => c.workflowId === iterationWorkflowId(runName, 1) && 'config' in c.input);
      expect(it1.length).toBeGreaterThan(0);
      for (const c of it1) expect((c.input as { config: typeof config }).config.trainer?.maximumAttempts, c.name).toBe(5);
      expect(result.iterations.map((i) => i.configChanges)).toEqual([changes, changes]);
      expect((await iterationHandle(env, runName, 1).query(iterationStatusQuery)).configChanges).toEqual(changes);
      // The config went into history by reference (config-by-ref-v1): stored once per iteration and once more after
      // the retry changed it; every stage input after that named the new one.
      const kept = mocks.callsOf('keepConfig').map((c) => [c.workflowId, c.input.config.trainer?.maximumAttempts]);
      expect(kept).toEqual([
        [iterationWorkflowId(runName, 0), 3],
        [iterationWorkflowId(runName, 0), 5],
        [iterationWorkflowId(runName, 1), 5],
      ]);
      const stageCalls = mocks.calls.filter((c) => c.name !== 'keepConfig' && 'config' in c.input);
      for (const c of stageCalls) expect(c.configRef, c.name).toBeDefined();
      expect(stageCalls.map((c) => c.name)).toEqual(expect.arrayContaining(['planIteration', 'runShard', 'trainCheckpoint']));
    });
  });
});
