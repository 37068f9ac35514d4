// A model server the loop deployed can be lost mid-generation (its gpu worker died): the shards that called it fail
// as ServedEndpointGone, and the iteration deploys again and re-runs only the missing shards on the new servers,
// without asking the user (workflows/redeploy.ts). A server lost after every deploy needs attention after
// MAX_REDEPLOYS, and the user's retry deploys once more.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iterationWorkflowId, retryStageUpdate } from '../../contracts/messages';
import { shardKey } from '../../contracts/run';
import { MAX_REDEPLOYS } from '../../workflows/redeploy';
import {
  activityOrder,
  callsOfStages,
  defaultAfter,
  DEFAULT_SHARDS,
  deployedEndpoint,
  EVAL_CONVERSATIONS,
  mockActivities,
  servedEndpointGone,
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

describe('redeploy of lost servers (mocked activities)', () => {
  it('a server lost mid-generation is deployed again and only the missing shard runs again', async () => {
    let lost: string | undefined;
    const mocks = mockActivities({
      // The first shard to call finds the server gone; the others finished before it died.
      runShard: defaultAfter('runShard', (input, c) => {
        if (c.n > 1) return;
        lost = shardKey(input.shard);
        throw servedEndpointGone(input.agent);
      }),
    });
    const runName = 'lost-once';
    await withMockedWorkers(env, mocks.activities, async () => {
      const config = mockedConfig();
      const result = await (await startRun(env, runName, config)).result(); // no stage waits for the user
      expect(activityOrder(mocks.calls, iterationWorkflowId(runName, 0))).toEqual([
        ...callsOfStages('deploy', 'generate'),
        'deployCheckpoint', // deployed again, with no undeploy first and no new plan
        'runShard',
        ...callsOfStages('evaluate', 'build-data', 'undeploy', 'train'),
      ]);
      const deploys = mocks.callsOf('deployCheckpoint');
      expect(deploys.map((c) => c.input.checkpoint)).toEqual([config.baseCheckpoint, config.baseCheckpoint]);
      const rerun = mocks.callsOf('runShard')[3];
      expect(shardKey(rerun.input.shard)).toBe(lost);
      expect(rerun.input.agent.baseUrl).toBe(deployedEndpoint(2, config.baseCheckpoint).baseUrl); // the new server
      expect(result.iterations[0].metrics.conversations).toBe(EVAL_CONVERSATIONS);
    });
  });

  it(`a server lost after every deploy needs attention after ${MAX_REDEPLOYS} redeploys; the retry deploys again`, async () => {
    const lostDeploys = MAX_REDEPLOYS + 1;
    const mocks = mockActivities({
      // The servers of the first deploys die under every shard; the one the retry deploys lives.
      runShard: defaultAfter('runShard', (input) => {
        if (Number(new URL(input.agent.baseUrl).port) - 9000 <= lostDeploys) throw servedEndpointGone(input.agent);
      }),
    });
    const runName = 'lost-always';
    await withMockedWorkers(env, mocks.activities, async () => {
      const handle = await startRun(env, runName, mockedConfig());
      const waiting = await waitForAttention(env.client, runName, 0, 30_000);
      expect(waiting.attention).toMatchObject({ stage: 'generate', failureType: 'ServedEndpointGone' });
      expect(waiting.attention!.error).toContain(`deployed again ${MAX_REDEPLOYS} times in this iteration and lost each time`);
      expect(mocks.callsOf('deployCheckpoint')).toHaveLength(lostDeploys);
      expect(waiting.shards).toEqual({ done: 0, total: DEFAULT_SHARDS });

      await iterationHandle(env, runName, 0).executeUpdate(retryStageUpdate, { args: [{}] });
      const result = await handle.result();
      expect(mocks.callsOf('deployCheckpoint')).toHaveLength(lostDeploys + 1);
      expect(activityOrder(mocks.calls, iterationWorkflowId(runName, 0)).slice(-6)).toEqual([
        'deployCheckpoint',
        `runShard×${DEFAULT_SHARDS}`,
        ...callsOfStages('evaluate', 'build-data', 'undeploy', 'train'),
      ]);
      expect(result.iterations[0].metrics.conversations).toBe(EVAL_CONVERSATIONS);
    });
  });
});
