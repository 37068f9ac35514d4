// `collab-loop pause` / `resume`: a loop paused before its first iteration starts none; an iteration paused
// mid-stage finishes that stage, stops its model servers (a paused run holds no GPU) and starts no further stage
// until resumed, when it deploys again before the stage that needs the servers.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iterationStatusQuery, iterationWorkflowId, loopStatusQuery, pauseSignal } from '../../contracts/messages';
import { activityOrder, callsOfStages, defaultAfter, holdUntilReleased, ITERATION_CALLS, mockActivities } from '../helpers/mock-activities';
import { iterationHandle, mockedConfig, startRun, startServerAndBundle, withMockedWorkers } from '../helpers/mocked-workers';
import { waitQuiescent } from '../helpers/quiescent';
import { waitUntil } from '../helpers/wait';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startServerAndBundle();
});
afterAll(async () => {
  await env?.teardown();
});

describe('pause and resume (mocked activities)', () => {
  it('a loop paused before it starts runs no iteration until resumed', async () => {
    const mocks = mockActivities();
    const runName = 'pause-before';
    // Started and paused with no worker polling, so the pause lands before anything runs.
    const handle = await startRun(env, runName, mockedConfig());
    await handle.signal(pauseSignal, true);
    await withMockedWorkers(env, mocks.activities, async () => {
      await waitUntil(async () => (await handle.query(loopStatusQuery)).paused, 20_000, 'loop paused');
      // Nothing pending: only a signal can move the loop now.
      await waitQuiescent(handle, 20_000);
      await expect(iterationHandle(env, runName, 0).describe()).rejects.toThrow();
      expect(mocks.calls).toEqual([]);

      await handle.signal(pauseSignal, false);
      const result = await handle.result();
      expect(result.iterations.map((i) => i.iteration)).toEqual([0]);
      expect((await handle.query(loopStatusQuery)).paused).toBe(false);
    });
  });

  it('an iteration paused mid-stage holds before the next stage with its servers stopped; resume deploys again', async () => {
    const hold = holdUntilReleased();
    const mocks = mockActivities({
      deployCheckpoint: defaultAfter('deployCheckpoint', (_, c) => c.n === 1 && hold.wait()),
    });
    const runName = 'pause-mid-stage';
    await withMockedWorkers(env, mocks.activities, async () => {
      const handle = await startRun(env, runName, mockedConfig());
      const child = iterationHandle(env, runName, 0);
      await waitUntil(async () => hold.arrived() === 1, 20_000, 'deploying');
      await handle.signal(pauseSignal, true); // the loop forwards it to the running iteration
      await waitUntil(async () => (await child.query(iterationStatusQuery)).paused, 20_000, 'iteration paused');
      hold.release();

      // The deploy finishes; the servers stop; then nothing is pending, so generate cannot start.
      await waitQuiescent(child, 20_000);
      const held = await child.query(iterationStatusQuery);
      expect(held).toMatchObject({ stage: 'deploy', paused: true });
      expect(held.attention).toBeUndefined();
      expect(activityOrder(mocks.calls, iterationWorkflowId(runName, 0))).toEqual(callsOfStages('deploy', 'undeploy'));
      expect((await handle.query(loopStatusQuery)).paused).toBe(true);

      await handle.signal(pauseSignal, false);
      const result = await handle.result();
      // Released while paused, deployed again for generate.
      expect(activityOrder(mocks.calls, iterationWorkflowId(runName, 0))).toEqual([
        ...callsOfStages('deploy', 'undeploy'),
        ...ITERATION_CALLS,
      ]);
      // The shards used the servers of the second deploy.
      const [, second] = mocks.callsOf('deployCheckpoint');
      expect(second.input.checkpoint).toBe(result.iterations[0].checkpoint);
      expect(new Set(mocks.callsOf('runShard').map((c) => c.input.agent.baseUrl))).toEqual(new Set(['http://127.0.0.1:9002/v1']));
    });
  });
});
