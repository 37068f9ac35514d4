// A worker SIGKILLed mid-train and replaced on the same host: the replacement fails the attempt the dead worker left
// running (workers/lost-activities.ts), so the train stage is retried as soon as the replacement starts rather than
// when the attempt's heartbeat timeout (here 300 s) passes; the trainer resumes from its last checkpoint.
import { defaultPayloadConverter } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iterationWorkflowId, loopWorkflowId } from '../../../contracts/messages';
import { TASK_QUEUES } from '../../../contracts/run';
import { trainingLoop } from '../../../workflows/loop';
import { startCliWorker } from '../../helpers/cli';
import { STAND_IN_TRAINER, tempStateDir, testConfig } from '../../helpers/config';
import { startDevServer } from '../../helpers/temporal';
import { waitUntil } from '../../helpers/wait';

const HEARTBEAT_TIMEOUT_S = 300;

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

/** The train stage's pending attempt: its number and the step it last reported. */
async function pendingTrain(runName: string): Promise<{ attempt: number; step: number; started: boolean } | undefined> {
  const d = await env.client.workflow.getHandle(iterationWorkflowId(runName, 0)).describe();
  const pa = d.raw.pendingActivities?.find((a) => a.activityType?.name === 'trainCheckpoint');
  if (!pa) return undefined;
  const p = pa.heartbeatDetails?.payloads?.[0];
  const h = p ? defaultPayloadConverter.fromPayload<{ step?: number }>(p as never) : undefined;
  // PENDING_ACTIVITY_STATE_STARTED = 2
  return { attempt: pa.attempt ?? 1, step: h?.step ?? 0, started: Number(pa.state) === 2 };
}

describe('a worker SIGKILLed mid-train, replaced on the same host', () => {
  it('has the train stage retried as the replacement starts, not after the heartbeat timeout', async () => {
    const stateDir = tempStateDir();
    const hostDir = path.join(stateDir, 'host');
    const config = testConfig(stateDir, (c) => {
      c.iterations = 1;
      c.trainer = {
        kind: 'command',
        method: 'sft',
        command: [...STAND_IN_TRAINER, '--steps', '200', '--step-ms', '100'],
        heartbeatTimeoutSeconds: HEARTBEAT_TIMEOUT_S,
      };
    });
    const runName = 'lost-train';
    const workerEnv = { TEMPORAL_ADDRESS: env.address };
    const args = ['--state-dir', hostDir];
    const first = await startCliWorker(workerEnv, args);
    const handle = await env.client.workflow.start(trainingLoop, {
      taskQueue: TASK_QUEUES.workflows,
      workflowId: loopWorkflowId(runName),
      args: [{ runName, config }],
    });
    await waitUntil(async () => ((await pendingTrain(runName))?.step ?? 0) >= 8, 180_000, 'the trainer reported step 8');
    first.worker.kill('SIGKILL');
    await first.worker;

    const second = await startCliWorker(workerEnv, args);
    try {
      const polling = Date.now();
      // Without the replacement failing the lost attempt, the retry would wait for the 300 s heartbeat timeout.
      await waitUntil(
        async () => {
          const p = await pendingTrain(runName);
          return p && p.attempt >= 2 && p.started;
        },
        (HEARTBEAT_TIMEOUT_S / 3) * 1000,
        'the train stage retried well before its heartbeat timeout',
      );
      console.log(`train retried ${((Date.now() - polling) / 1000).toFixed(1)} s after the replacement polled`);
      expect(second.output()).toMatch(/trainCheckpoint \(attempt 1\) of .* was left running by worker pid \d+/);

      const result = await handle.result();
      expect(result.iterations[0].train?.steps).toBe(200);
      const log = readFileSync(path.join(hostDir, 'logs', runName, 'train-iter-0.log'), 'utf8');
      expect(log).toMatch(/resuming from \S+ at step [1-9]\d*/); // from its checkpoint, not from scratch
    } finally {
      await second.stop();
    }
  });
});
