// An iteration bigger than the worker's heap: 50,400 conversations on the simulator, generated and evaluated by a
// worker whose V8 heap is capped at 160 MB. Shards hold `shardSize` conversations (however many samples a task
// has) and evaluation folds the records shard by shard, so what a worker holds depends on its concurrency, not
// on the size of the iteration (before: one shard held 4 tasks × 2,100 samples, and evaluation read every record).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { trainingLoop } from '../../../workflows/loop';
import { loopWorkflowId } from '../../../contracts/messages';
import { TASK_QUEUES } from '../../../contracts/run';
import { startDevServer } from '../../helpers/temporal';
import { tempStateDir, testConfig } from '../../helpers/config';
import { startCliWorker } from '../../helpers/cli';

const TASKS = 24;
const SAMPLES = 2100;
let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

describe('an iteration that does not fit in the worker heap', () => {
  it(`generates and evaluates ${TASKS * SAMPLES} conversations under --max-old-space-size=160`, async () => {
    const stateDir = tempStateDir();
    const config = testConfig(stateDir, (c) => {
      c.iterations = 1;
      delete c.trainer;
      delete c.recipe.trainTasks;
      c.recipe.limit = TASKS;
      c.recipe.evalSamples = SAMPLES;
      c.recipe.maxTurns = 2;
      c.generation = { shardSize: 1000, concurrency: 64, heartbeatTimeoutSeconds: 60 };
    });
    const { worker, output, stop } = await startCliWorker({ TEMPORAL_ADDRESS: env.address, NODE_OPTIONS: '--max-old-space-size=160' });
    try {
      const runName = 'capped-heap';
      const handle = await env.client.workflow.start(trainingLoop, {
        taskQueue: TASK_QUEUES.workflows,
        workflowId: loopWorkflowId(runName),
        args: [{ runName, config, evalOnly: true }],
      });
      const result = await Promise.race([
        handle.result(),
        worker.then(() => {
          throw new Error(`the worker exited:\n${output().slice(-3000)}`);
        }),
      ]);
      const metrics = result.iterations[0].metrics;
      expect(metrics.conversations).toBe(TASKS * SAMPLES);
      expect(metrics.agreement_rate).toBeGreaterThan(0);
    } finally {
      await stop();
    }
  }, 900_000); // ~150 s on a quiet machine of this class, over 180 s beside the rest of the suite
});
