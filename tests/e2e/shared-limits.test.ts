// llm.sharedLimits end to end: two runs on two `collab-loop worker` processes, one external endpoint that counts the
// requests it serves at once, and llm.sharedLimits on a real redis-server. Each worker process takes shards of both
// runs; the endpoint's peak never passes its maxConcurrency, and both runs finish.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRedis, startLocalRedis } from '../../cli/stack/redis';
import { trainingLoop } from '../../workflows/loop';
import { loopWorkflowId } from '../../contracts/messages';
import { TASK_QUEUES } from '../../contracts/run';
import { startCliWorker } from '../helpers/cli';
import { tempStateDir, testConfig } from '../helpers/config';
import { startLimitsEndpoint, type LimitsEndpoint } from '../helpers/limits-endpoint';
import { startDevServer } from '../helpers/temporal';

let env: TestWorkflowEnvironment;
let redis: LocalRedis;
let endpoint: LimitsEndpoint;
beforeAll(async () => {
  [env, redis, endpoint] = await Promise.all([startDevServer(), startLocalRedis(), startLimitsEndpoint(30)]);
});
afterAll(async () => {
  await env?.teardown();
  await endpoint?.close();
  await redis?.stop();
});

const LIMIT = 3;

describe('one endpoint limit shared by two runs on two worker processes', () => {
  it('the endpoint never serves more than maxConcurrency at once, and both runs finish', async () => {
    const stateDir = tempStateDir('shared-limits-e2e-');
    const config = testConfig(stateDir, (c) => {
      c.server = { kind: 'external', endpoint: { baseUrl: endpoint.baseUrl, model: endpoint.model, maxConcurrency: LIMIT } };
      delete c.trainer;
      c.iterations = 1;
      c.recipe.limit = 8;
      c.recipe.evalSamples = 2;
      c.generation = { shardSize: 2, concurrency: 8, heartbeatTimeoutSeconds: 10 };
      c.llm = { ...c.llm, sharedLimits: { redis: redis.url } };
    });
    const workers = await Promise.all([
      startCliWorker({ TEMPORAL_ADDRESS: env.address }),
      startCliWorker({ TEMPORAL_ADDRESS: env.address }),
    ]);
    try {
      const runs = ['limits-a', 'limits-b'].map((runName) =>
        env.client.workflow.execute(trainingLoop, {
          taskQueue: TASK_QUEUES.workflows,
          workflowId: loopWorkflowId(runName),
          args: [{ runName, config, evalOnly: true }],
        }),
      );
      const results = await Promise.race([
        Promise.all(runs),
        new Promise<never>((_, reject) =>
          setTimeout(
            () =>
              reject(
                new Error(
                  `no result in 150 s (endpoint saw ${endpoint.seen.length}, in flight ${endpoint.inFlight()}):\n${workers.map((w) => w.output()).join('\n---\n')}`,
                ),
              ),
            150_000,
          ),
        ),
      ]);
      for (const r of results) expect(r.iterations[0].metrics).toBeTruthy();
      // Each run's 16 conversations took several calls: far more than the limit were waiting at once.
      expect(endpoint.seen.length).toBeGreaterThan(4 * LIMIT);
      expect(endpoint.peak()).toBeLessThanOrEqual(LIMIT);
      expect(endpoint.peak()).toBe(LIMIT); // and the limit was used, not starved
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
  }, 240_000);
});
