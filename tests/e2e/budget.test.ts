// A run's `budget`: when it is spent, the run issues no call that would pass it and waits as needs attention
// ("budget reached") with what it spent; `collab-loop retry --set budget.tokens=…` continues it, the raised budget
// holds for the later iterations, and nothing done is lost. `status` and the iteration summaries show the spend per
// stage and per model role. How close to the budget a run stops: tests/e2e/budget-exact.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { trainingLoop } from '../../workflows/loop';
import { iterationWorkflowId, loopWorkflowId } from '../../contracts/messages';
import { TASK_QUEUES } from '../../contracts/run';
import { startDevServer } from '../helpers/temporal';
import { withWorkers } from '../helpers/workers';
import { tempStateDir, testConfig } from '../helpers/config';
import { cli } from '../helpers/cli';
import { waitForAttention } from '../helpers/wait';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

describe('budget', () => {
  it('stops before a call would pass it, waits as needs attention, and goes on after retry --set budget', async () => {
    const config = testConfig(tempStateDir(), (c) => {
      c.iterations = 2;
      // Every call may cost more than 1 token: iteration 0's first call is refused.
      c.budget = { tokens: 1 };
    });
    const runName = 'budget';
    await withWorkers(env, async () => {
      const handle = await env.client.workflow.start(trainingLoop, {
        taskQueue: TASK_QUEUES.workflows,
        workflowId: loopWorkflowId(runName),
        args: [{ runName, config }],
      });
      const waiting = await waitForAttention(env.client, runName, 0, 90_000);
      expect(waiting.attention).toMatchObject({ stage: 'generate', failureType: 'BudgetReached' });
      expect(waiting.attention!.error).toMatch(/^budget reached: the run has spent \d+ tokens of budget\.tokens 1/);
      expect(waiting.shards.done).toBe(0); // no shard got past its first call
      expect((await handle.describe()).status.name).toBe('RUNNING');

      const status = await cli(['status', runName], { TEMPORAL_ADDRESS: env.address });
      expect(status.stdout).toContain('NEEDS ATTENTION in stage "generate"');
      expect(status.stdout).toMatch(/run spend: \d+ tokens/);

      const retry = await cli(['retry', runName, '--set', 'budget.tokens=100000000'], { TEMPORAL_ADDRESS: env.address });
      expect(retry.all).toContain('retrying from stage generate');
      const result = await handle.result();

      const [it0, it1] = result.iterations;
      // Spend per stage and role: the conversations' calls, by the agent and the extractor.
      expect(it0.spend!.total.tokens).toBeGreaterThan(1);
      expect(it0.spend!.byStage.generate!.tokens).toBe(it0.spend!.total.tokens);
      expect(Object.keys(it0.spend!.byRole).sort()).toEqual(['agent', 'extractor']);
      const roleSum = Object.values(it0.spend!.byRole).reduce((a, s) => a + s.tokens, 0);
      expect(roleSum).toBe(it0.spend!.total.tokens);
      expect(it1.spend!.total.tokens).toBeGreaterThan(0);
      expect(it1.budget).toEqual({ tokens: 100000000 }); // the raised budget, kept by the loop
      // Nothing done was lost: each iteration ran each of its shards once.
      for (const id of [iterationWorkflowId(runName, 0), iterationWorkflowId(runName, 1)]) {
        const history = await env.client.workflow.getHandle(id).fetchHistory();
        const shards = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runShard');
        expect(shards.length, id).toBeGreaterThan(0);
        expect(new Set(shards.map((e) => JSON.stringify(e.activityTaskScheduledEventAttributes?.input))).size, id).toBe(shards.length);
      }
    });
  });
});
