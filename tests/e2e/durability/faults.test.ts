// A flaky endpoint (20% of requests answered 429, 500 or a connection reset) does not kill the run: every
// conversation is present exactly once and no successful request was paid twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { trainingLoop } from '../../../workflows/loop';
import { loopWorkflowId } from '../../../contracts/messages';
import { TASK_QUEUES } from '../../../contracts/run';
import type { RunningServer } from '../../../activities/serving/openai-compatible-server';
import { startDevServer } from '../../helpers/temporal';
import { withWorkers } from '../../helpers/workers';
import { tempStateDir, testConfig } from '../../helpers/config';
import { externalDeploy, startCountingEndpoint } from '../../helpers/endpoint';
import { evaluatedRecords, recordKeys } from '../../helpers/records';

let env: TestWorkflowEnvironment;
let server: RunningServer;
beforeAll(async () => {
  env = await startDevServer();
  server = await startCountingEndpoint({ latencyMs: 5, faults: { rate: 0.2, kinds: ['429', '500', 'reset'], seed: 11, retryAfterMs: 20 } });
});
afterAll(async () => {
  await server?.close();
  await env?.teardown();
});

describe('endpoint faults', () => {
  it('completes with all records present once despite 20% 429/500/resets', async () => {
    const stateDir = tempStateDir();
    const config = testConfig(stateDir, (c) => {
      c.iterations = 1;
      delete c.trainer;
      delete c.recipe.trainTasks;
      c.recipe.limit = 12;
      c.recipe.evalSamples = 2;
      c.server = externalDeploy(server);
      c.generation = { shardSize: 6, concurrency: 8, heartbeatTimeoutSeconds: 10, maximumAttempts: 50 };
      c.llm = { callRetries: 1, maxRetryDelaySeconds: 1 }; // low, so some failures reach Temporal's activity retry too
    });
    const runName = 'faults';
    const result = await withWorkers(env, () =>
      env.client.workflow.execute(trainingLoop, {
        taskQueue: TASK_QUEUES.workflows,
        workflowId: loopWorkflowId(runName),
        args: [{ runName, config, evalOnly: true }],
      }),
    );
    const stats = server.stats();
    expect(stats.faulted).toBeGreaterThan(10);
    expect(stats.faulted / stats.received).toBeGreaterThan(0.1);
    expect(stats.duplicates).toBe(0);
    const keys = recordKeys(evaluatedRecords(result.iterations[0]));
    expect(keys).toHaveLength(24);
    expect(new Set(keys).size).toBe(24);
    expect(result.iterations[0].metrics.conversations).toBe(24);
  });
});
