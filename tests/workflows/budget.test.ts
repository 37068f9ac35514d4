// The run's `budget`: once the run has spent it, no new shard starts (shards in flight finish) and generate waits
// as needs attention ("budget reached"); a retry with a raised budget runs only the shards still missing, and a stop
// ends the loop with the iterations that finished. What earlier iterations spent counts: the next iteration stops
// before its first shard.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iterationWorkflowId, loopStatusQuery, retryStageUpdate, stopSignal } from '../../contracts/messages';
import { shardKey } from '../../contracts/run';
import { DEFAULT_PARALLEL_SHARDS } from '../../contracts/run';
import { activityOrder, DEFAULT_MOCKS, DEFAULT_SHARDS, mockActivities, mockPlan, SHARD_TOKENS } from '../helpers/mock-activities';
import { iterationHandle, mockedConfig, startRun, startServerAndBundle, withMockedWorkers } from '../helpers/mocked-workers';
import { waitForAttention } from '../helpers/wait';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startServerAndBundle();
});
afterAll(async () => {
  await env?.teardown();
});

describe('budget (mocked activities)', () => {
  it('no new shard starts once the budget is spent; a raised budget runs only the missing shards', async () => {
    // More shards than run at once, so some wait for a shard boundary, where the budget is checked.
    const evalShards = DEFAULT_PARALLEL_SHARDS + 1;
    const mocks = mockActivities({
      planIteration: async (input, c) => ({
        ...(await DEFAULT_MOCKS.planIteration(input, c)),
        shards: mockPlan({ eval: evalShards, train: 1 }, true),
      }),
    });
    const runName = 'budget-in-iteration';
    await withMockedWorkers(env, mocks.activities, async () => {
      const config = mockedConfig({ budget: { tokens: SHARD_TOKENS } }); // spent by the first shard to finish
      const handle = await startRun(env, runName, config);
      const waiting = await waitForAttention(env.client, runName, 0, 30_000);
      expect(waiting.attention).toMatchObject({ stage: 'generate', failureType: 'BudgetReached' });
      expect(waiting.attention!.error).toMatch(
        new RegExp(`^budget reached: the run has spent \\d+ tokens of budget\\.tokens ${SHARD_TOKENS}`),
      );
      // The shards in flight finished; the rest never started.
      expect(waiting.shards).toEqual({ done: DEFAULT_PARALLEL_SHARDS, total: evalShards + 1 });
      expect(mocks.callsOf('runShard')).toHaveLength(DEFAULT_PARALLEL_SHARDS);
      expect(waiting.spend?.total.tokens).toBe(DEFAULT_PARALLEL_SHARDS * SHARD_TOKENS);

      const raised = { ...config, budget: { tokens: 1_000_000 } };
      const changes = ['budget.tokens=1000000'];
      expect(await iterationHandle(env, runName, 0).executeUpdate(retryStageUpdate, { args: [{ config: raised, changes }] })).toBe(
        'retrying from stage generate',
      );
      const result = await handle.result();
      // Each shard ran once: the retry ran only the two that had not started, told what the others spent.
      const keys = mocks.callsOf('runShard').map((c) => shardKey(c.input.shard));
      expect(keys).toHaveLength(evalShards + 1);
      expect(new Set(keys).size).toBe(evalShards + 1);
      const retried = mocks.callsOf('runShard').slice(DEFAULT_PARALLEL_SHARDS);
      for (const c of retried) expect(c.input.ledger?.finished.tokens).toBe(DEFAULT_PARALLEL_SHARDS * SHARD_TOKENS);
      const [it0] = result.iterations;
      expect(it0.spend?.total.tokens).toBe((evalShards + 1) * SHARD_TOKENS);
      expect(it0.budget).toEqual({ tokens: 1_000_000 });
      expect(it0.nextCheckpoint).toBeDefined();
    });
  });

  it('what earlier iterations spent stops the next one before its first shard; stop ends the loop', async () => {
    const mocks = mockActivities();
    const runName = 'budget-across';
    const perIteration = DEFAULT_SHARDS * SHARD_TOKENS;
    await withMockedWorkers(env, mocks.activities, async () => {
      // Less than iteration 0 spends: its shards all start before any finishes, so it completes.
      const handle = await startRun(env, runName, mockedConfig({ iterations: 3, budget: { tokens: perIteration - 1 } }));
      const waiting = await waitForAttention(env.client, runName, 1, 30_000);
      expect(waiting.attention).toMatchObject({ stage: 'generate', failureType: 'BudgetReached' });
      expect(waiting.attention!.error).toMatch(
        new RegExp(`^budget reached: the run has spent ${perIteration} tokens of budget\\.tokens ${perIteration - 1}`),
      );
      // Iteration 1 deployed and planned, and started no shard.
      expect(activityOrder(mocks.calls, iterationWorkflowId(runName, 1))).toEqual(['deployCheckpoint', 'planIteration']); // no runShard
      // Iteration 0's shards were told nothing was spent before them.
      for (const c of mocks.callsOf('runShard')) expect(c.input.ledger?.before).toEqual({ tokens: 0, usd: 0 });
      const loop = await handle.query(loopStatusQuery);
      expect(loop).toMatchObject({ iteration: 1, finished: false });
      expect(loop.done.map((d) => d.spend?.total.tokens)).toEqual([perIteration]);

      await handle.signal(stopSignal, 'the budget is spent');
      const result = await handle.result();
      expect(result.stopped).toBe(true);
      expect(result.iterations.map((i) => i.iteration)).toEqual([0]);
      expect(result.finalCheckpoint).toBe(result.iterations[0].nextCheckpoint);
      expect(mocks.calls.at(-1)).toMatchObject({ name: 'undeployCheckpoint', workflowId: iterationWorkflowId(runName, 1) });
    });
  });
});
