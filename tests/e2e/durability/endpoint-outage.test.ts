// The endpoint-outage promise: the model server goes away for 30 s mid-generation (a vLLM or proxy restart: every
// connection dropped, then refused) and comes back on the same port. Each call waits for it (llm.outageToleranceSeconds),
// so the run completes with every shard on its first attempt — no failed attempt, nothing that needs attention — and
// no request is answered twice.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iterationWorkflowId } from '../../../contracts/messages';
import { tempStateDir, testConfig } from '../../helpers/config';
import { evaluateOn, startRestartableEndpoint } from '../../helpers/endpoint';
import { evaluatedRecords, recordKeys } from '../../helpers/records';
import { activityAttempts, runLoop } from '../../helpers/run-loop';
import { startDevServer } from '../../helpers/temporal';

const OUTAGE_MS = 30_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

describe('the LLM endpoint is down for 30 s during generation', () => {
  it('completes with every shard on its first attempt and no request answered twice', async () => {
    const STOP_AT_ANSWER = 30;
    let down: Promise<void> | undefined;
    const endpoint = await startRestartableEndpoint({
      latencyMs: 150,
      capacity: 8,
      onAnswer: (n) => {
        // Stopped as it produces answer 30 of at least 64: mid-generation, with requests in flight.
        if (n === STOP_AT_ANSWER)
          down ??= (async () => {
            await endpoint.stop();
            await sleep(OUTAGE_MS);
            await endpoint.start();
          })();
      },
    });
    try {
      const stateDir = tempStateDir('endpoint-outage-');
      const config = testConfig(stateDir, (c) => {
        evaluateOn(endpoint, c);
        // Plenty of attempts, so that without the wait the run still completes and the assertions say what it cost.
        c.generation = { shardSize: 8, concurrency: 8, heartbeatTimeoutSeconds: 5, maximumAttempts: 50 };
      });
      const runName = 'endpoint-outage';
      const result = await runLoop(env, runName, config, { evalOnly: true });
      expect(down).toBeDefined(); // the outage happened during the run…
      await down;
      const stats = endpoint.stats();
      expect(stats.completed).toBeGreaterThan(STOP_AT_ANSWER); // …and generation went on after it

      const attempts = await activityAttempts(env.client, iterationWorkflowId(runName, 0));
      console.log(
        `endpoint outage during generation: ${stats.completed} answers, ${stats.duplicates} answered twice; activity attempts ${JSON.stringify(attempts)}`,
      );
      expect(attempts.length).toBeGreaterThan(0);
      expect(attempts.filter((a) => a !== 1)).toEqual([]); // no shard attempt failed or timed out
      expect(stats.duplicates).toBe(0);
      const keys = recordKeys(evaluatedRecords(result.iterations[0]));
      expect(keys).toHaveLength(32);
      expect(new Set(keys).size).toBe(32);
    } finally {
      await endpoint.close();
    }
  }, 240_000);
});
