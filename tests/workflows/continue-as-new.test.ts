// The loop runs each iteration as a child workflow `collab-loop/<run>/iter-<k>` and continues as new between
// iterations, carrying its small state: the checkpoint iteration k trained is the one iteration k+1 serves and
// trains from, and a pause that lands during an iteration's last stage holds the next execution before it starts
// the next iteration.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iterationWorkflowId, loopStatusQuery, loopWorkflowId, pauseSignal } from '../../contracts/messages';
import {
  activityOrder,
  defaultAfter,
  holdUntilReleased,
  ITERATION_CALLS,
  mockActivities,
  trainedCheckpoint,
} from '../helpers/mock-activities';
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

/** How the loop's first execution ended (the last event of its history). */
async function firstExecutionEnd(runName: string, firstRunId: string): Promise<string> {
  const handle = env.client.workflow.getHandle(loopWorkflowId(runName), firstRunId);
  const events = (await handle.fetchHistory()).events ?? [];
  return events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes ? 'continued as new' : String(events.at(-1)?.eventType);
}

describe('continue-as-new between iterations (mocked activities)', () => {
  it('each iteration is its own child and serves the checkpoint the one before trained', async () => {
    const mocks = mockActivities();
    const runName = 'chain';
    await withMockedWorkers(env, mocks.activities, async () => {
      const config = mockedConfig({ iterations: 3 });
      const handle = await startRun(env, runName, config);
      const result = await handle.result();

      // One child per iteration, every activity of iteration k in it and told k.
      const ids = [0, 1, 2].map((k) => iterationWorkflowId(runName, k));
      expect(ids).toEqual([`collab-loop/${runName}/iter-0`, `collab-loop/${runName}/iter-1`, `collab-loop/${runName}/iter-2`]);
      expect([...new Set(mocks.calls.map((c) => c.workflowId))]).toEqual(ids);
      for (const [k, id] of ids.entries()) {
        expect(activityOrder(mocks.calls, id)).toEqual(ITERATION_CALLS);
        for (const c of mocks.calls.filter((x) => x.workflowId === id))
          if ('iteration' in c.input) expect(c.input.iteration, `${c.name} of ${id}`).toBe(k);
      }

      // The chain: base → iter-1 → iter-2 → iter-3, each served by the deploy and trained from by the trainer.
      const served = [config.baseCheckpoint, trainedCheckpoint(runName, 0), trainedCheckpoint(runName, 1)];
      expect(mocks.callsOf('deployCheckpoint').map((c) => [c.input.checkpoint, c.input.checkpoints])).toEqual([
        [served[0], {}],
        [served[1], { agent: served[1] }],
        [served[2], { agent: served[2] }],
      ]);
      expect(mocks.callsOf('trainCheckpoint').map((c) => c.input.checkpoint)).toEqual(served);
      expect(result.iterations.map((i) => [i.iteration, i.checkpoint, i.nextCheckpoint])).toEqual(
        [0, 1, 2].map((k) => [k, served[k], trainedCheckpoint(runName, k)]),
      );
      expect(result.finalCheckpoint).toBe(trainedCheckpoint(runName, 2));
      expect(result.stopped).toBe(false);

      // The loop's first execution ended by continuing as new; the last one holds every iteration's summary.
      expect((await handle.describe()).runId).not.toBe(handle.firstExecutionRunId);
      expect(await firstExecutionEnd(runName, handle.firstExecutionRunId)).toBe('continued as new');
      expect((await handle.query(loopStatusQuery)).done.map((d) => d.iteration)).toEqual([0, 1, 2]);
    });
  });

  it('a pause during the last stage holds the next execution before its iteration starts', async () => {
    const hold = holdUntilReleased();
    const mocks = mockActivities({
      trainCheckpoint: defaultAfter('trainCheckpoint', (_, c) => c.n === 1 && hold.wait()),
    });
    const runName = 'pause-across';
    await withMockedWorkers(env, mocks.activities, async () => {
      const handle = await startRun(env, runName, mockedConfig({ iterations: 2 }));
      await waitUntil(async () => hold.arrived() === 1, 20_000, 'training');
      await handle.signal(pauseSignal, true);
      await waitUntil(async () => (await handle.query(loopStatusQuery)).paused, 20_000, 'loop paused');
      hold.release();

      // Iteration 0 completes (train was its last stage); the next execution carries the pause and holds.
      await waitUntil(
        async () => {
          const s = await handle.query(loopStatusQuery);
          return s.iteration === 1 && s.paused;
        },
        20_000,
        'the next execution, paused',
      );
      await waitQuiescent(handle, 20_000);
      expect((await handle.describe()).runId).not.toBe(handle.firstExecutionRunId);
      await expect(iterationHandle(env, runName, 1).describe()).rejects.toThrow();
      expect(mocks.calls.every((c) => c.workflowId === iterationWorkflowId(runName, 0))).toBe(true);

      await handle.signal(pauseSignal, false);
      const result = await handle.result();
      expect(result.iterations.map((i) => i.iteration)).toEqual([0, 1]);
      expect(mocks.callsOf('deployCheckpoint')[1].input.checkpoint).toBe(trainedCheckpoint(runName, 0));
    });
  });
});
